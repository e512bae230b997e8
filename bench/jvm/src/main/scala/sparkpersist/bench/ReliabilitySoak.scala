package sparkpersist.bench

import java.nio.file.Files

import sparkpersist.interpret.SoundnessCheck
import sparkpersist.reliability.{AuditedStore, CodecFuzz, ConcurrentWritersRun, CrashRun, CrashingWriter, Tally}

/**
 * The reliability suite (issue 13) at full size; `sparkpersist.reliability.*` runs each case small
 * in `make test`:
 *
 *  - the stats and state codecs fed `fuzz` damaged encodings and random byte strings each;
 *  - a writer JVM halted at each named step of a write (`crashes / 5` times each) and killed with
 *    `kill -9` at a random time (`crashes` times), the shard reopened and garbage-collected;
 *  - `processes` writer JVMs appending `appends` batches each to one shard, compacted meanwhile;
 *  - the interpreter's soundness property until `checks` concrete checks per ANSI mode.
 *
 * Prints the table `case | runs | failures | data lost | minutes` (and the first failures of each
 * case), writes bench/out/reliability_soak.json, and exits with status 1 on any failure.
 * `--cases=<group>,...` runs only the named groups of cases: `fuzz`, `crash`, `writers`, `soundness`,
 * or one case: `stats`, `binary`, `state`, `crash-parts`, `crash-commit`, `crash-state`,
 * `crash-rollup`, `crash-random`, `soundness-ansi`, `soundness-legacy`. `--parallel=<n>` (default 2)
 * runs the crash runs of a case `n` at a time, each with its own writer JVM and shard: the writer
 * JVM's start dominates a run and leaves a core idle.
 *
 * Usage: bench/runMain sparkpersist.bench.ReliabilitySoak [fuzz=100000] [crashes=50] [processes=8]
 *        [appends=50] [checks=1000000] [seed=1] [--cases=...] [--parallel=2]
 */
object ReliabilitySoak {

  def main(argv: Array[String]): Unit = {
    val (flags, args) = argv.partition(_.startsWith("--"))
    def flag(name: String): Option[String] = flags.collectFirst { case f if f.startsWith(s"--$name=") => f.stripPrefix(s"--$name=") }
    val selected = flag("cases").map(_.split(',').toSet)
    val parallel = flag("parallel").fold(2)(_.toInt)
    flags.filterNot(f => f.startsWith("--cases=") || f.startsWith("--parallel=")).foreach(f =>
      throw new IllegalArgumentException(s"unknown flag $f"))
    val fuzz = Bench.arg(args, 0, 100000)(_.toInt)
    val crashes = Bench.arg(args, 1, 50)(_.toInt)
    val processes = Bench.arg(args, 2, 8)(_.toInt)
    val appends = Bench.arg(args, 3, 50)(_.toInt)
    val checks = Bench.arg(args, 4, 1000000L)(_.toLong)
    val seed = Bench.arg(args, 5, 1L)(_.toLong)
    val root = Files.createTempDirectory("reliability-soak").toFile
    val spark = Bench.persistSession("ReliabilitySoak", root)
    println(s"ReliabilitySoak: fuzz $fuzz, crashes $crashes, $processes x $appends appends, $checks soundness checks, " +
      s"seed $seed, shards under $root")

    // (group, case, run): every case of the soak, in the order they run.
    val cases: Seq[(String, String, () => Tally)] =
      Seq[(String, String, () => Tally)](("fuzz", "stats", () => CodecFuzz.stats(fuzz, seed)),
        ("fuzz", "binary", () => CodecFuzz.binaryStats(fuzz, seed)), ("fuzz", "state", () => CodecFuzz.state(fuzz, seed))) ++
        (CrashingWriter.Steps.map(step => (step, math.max(1, crashes / 5))) :+ ("random" -> crashes)).map {
          case (step, runs) => ("crash", s"crash-$step", () =>
            inParallel(runs, parallel)(i => CrashRun.run(spark, AuditedStore(root), s"crash_${step}_$i", step, seed + i)))
        } ++
        Seq(("writers", "writers", () => ConcurrentWritersRun.run(spark, AuditedStore(root), "racing", processes, appends, compact = true))) ++
        Seq(true, false).map(ansi => ("soundness", if (ansi) "soundness-ansi" else "soundness-legacy",
          () => soundness(spark, ansi, checks, seed)))
    selected.foreach { names =>
      val known = cases.flatMap(c => Seq(c._1, c._2)).toSet
      names.filterNot(known).foreach(n => throw new IllegalArgumentException(
        s"unknown case $n in --cases; cases: ${known.toSeq.sorted.mkString(", ")}"))
    }
    val (results, wallMs) = Bench.timedMs {
      cases.collect { case (group, name, run) if selected.forall(s => s(group) || s(name)) => reported(run()) }
    }
    spark.stop()

    val tallies = results.map(_._1)
    val table = Table(f"Reliability soak, seed $seed (${wallMs / 60000}%.1f minutes)",
      Seq(Table.Column("case", "case"), Table.Column("runs", "runs"), Table.Column("failures", "failures"),
        Table.Column("data lost", "lost"), Table.Column("minutes", "minutes")),
      results.map { case (t, minutes) => Seq[Any](t.name, t.runs, t.failures, t.lost, f"$minutes%.1f") },
      tallies.filter(_.failures > 0).flatMap(t => t.examples.map(e => s"${t.name}: $e")))
    table.print()
    BenchOutput.write("reliability_soak.json", "reliability_soak", Seq("fuzz" -> fuzz, "crashes" -> crashes,
      "processes" -> processes, "appends" -> appends, "checks" -> checks, "seed" -> seed), table)
    if (tallies.exists(_.failures > 0)) sys.exit(1)
  }

  private val started = System.nanoTime()

  /** The tallies of `run(0)`, ..., `run(runs - 1)` added up, run `threads` at a time. */
  private def inParallel(runs: Int, threads: Int)(run: Int => Tally): Tally = {
    val pool = java.util.concurrent.Executors.newFixedThreadPool(threads)
    try {
      (0 until runs).map(i => pool.submit(new java.util.concurrent.Callable[Tally] { def call(): Tally = run(i) }))
        .map(_.get()).reduce(_ ++ _)
    }
    finally pool.shutdownNow()
  }

  /**
   * A case's tally and the minutes it took, printed as soon as they are known, so a long soak
   * shows progress (and partial figures if stopped).
   */
  private def reported(tally: => Tally): (Tally, Double) = {
    val (t, ms) = Bench.timedMs(tally)
    println(f"[${(System.nanoTime() - started) / 6e10}%.1f min] ${t.name}: ${t.runs} runs, ${t.failures} failures, " +
      f"${t.lost} lost, ${ms / 60000}%.2f minutes")
    (t, ms / 60000)
  }

  /** Soundness cases until `checks` concrete checks; one run per case, failed if it found a violation. */
  private def soundness(spark: org.apache.spark.sql.SparkSession, ansi: Boolean, checks: Long, seed: Long): Tally = {
    val t = InterpretBench.soundnessRun(new SoundnessCheck(spark), ansi, seed)(_.checked >= checks)
    Tally(s"soundness (ansi=$ansi): ${t.checked} concrete checks", t.predicates, t.violations.size, t.violations.size,
      t.violations.take(Tally.Examples))
  }
}
