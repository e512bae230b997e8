package sparkpersist.bench

import java.nio.file.Files

import sparkpersist.interpret.SoundnessCheck
import sparkpersist.reliability.{CodecFuzz, ConcurrentWritersRun, CrashRun, CrashingWriter, Tally}

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
 * Prints the table `case | runs | failures | data lost` (and the first failures of each case),
 * writes bench/out/reliability_soak.json, and exits with status 1 on any failure.
 *
 * Usage: bench/runMain sparkpersist.bench.ReliabilitySoak [fuzz=100000] [crashes=50] [processes=8]
 *        [appends=50] [checks=1000000] [seed=1]
 */
object ReliabilitySoak {

  def main(args: Array[String]): Unit = {
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

    val (tallies, wallMs) = Bench.timedMs {
      Seq(reported(CodecFuzz.stats(fuzz, seed)), reported(CodecFuzz.binaryStats(fuzz, seed)),
        reported(CodecFuzz.state(fuzz, seed))) ++
        (CrashingWriter.Steps.map(step => (step, math.max(1, crashes / 5))) :+ ("random" -> crashes)).map {
          case (step, runs) => reported((0 until runs)
            .map(i => CrashRun.run(spark, root, s"crash_${step}_$i", step, seed + i)).reduce(_ ++ _))
        } ++
        Seq(reported(ConcurrentWritersRun.run(spark, root, "racing", processes, appends, compact = true))) ++
        Seq(true, false).map(ansi => reported(soundness(spark, ansi, checks, seed)))
    }
    spark.stop()

    val table = Table(f"Reliability soak, seed $seed (${wallMs / 60000}%.1f minutes)",
      Seq(Table.Column("case", "case"), Table.Column("runs", "runs"), Table.Column("failures", "failures"),
        Table.Column("data lost", "lost")),
      tallies.map(t => Seq[Any](t.name, t.runs, t.failures, t.lost)),
      tallies.filter(_.failures > 0).flatMap(t => t.examples.map(e => s"${t.name}: $e")))
    table.print()
    BenchOutput.write("reliability_soak.json", "reliability_soak", Seq("fuzz" -> fuzz, "crashes" -> crashes,
      "processes" -> processes, "appends" -> appends, "checks" -> checks, "seed" -> seed), table)
    if (tallies.exists(_.failures > 0)) sys.exit(1)
  }

  private val started = System.nanoTime()

  /** Prints a case's tally as soon as it is known, so a long soak shows progress (and partial figures if stopped). */
  private def reported(tally: => Tally): Tally = {
    val t = tally
    println(f"[${(System.nanoTime() - started) / 6e10}%.1f min] ${t.name}: ${t.runs} runs, ${t.failures} failures, " +
      s"${t.lost} lost")
    t
  }

  /** Soundness cases until `checks` concrete checks; one run per case, failed if it found a violation. */
  private def soundness(spark: org.apache.spark.sql.SparkSession, ansi: Boolean, checks: Long, seed: Long): Tally = {
    val t = InterpretBench.soundnessRun(new SoundnessCheck(spark), ansi, seed)(_.checked >= checks)
    Tally(s"soundness (ansi=$ansi): ${t.checked} concrete checks", t.predicates, t.violations.size, t.violations.size,
      t.violations.take(Tally.Examples))
  }
}
