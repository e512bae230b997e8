package sparkpersist.bench

import java.io.File
import java.lang.management.ManagementFactory
import java.nio.file.Files

import scala.util.Random

import org.apache.commons.io.FileUtils
import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, GreaterThan, LessThan, Literal}
import org.apache.spark.sql.types.{DoubleType, LongType}

import sparkpersist.bench.Bench.median
import sparkpersist.interpret.{MzNowSpec, PartDecision}
import sparkpersist.plan.{PartDecisions, PartPruning}
import sparkpersist.shard.{JsonRollups, ShardFixtures, ShardState, ShardStore}

/**
 * How long a cold open of a shard takes (a new store and state log, as a fresh driver has):
 * `ShardStore.open(name).state` for shards of 1k to 1M parts written as batches of 100 parts,
 * each part with stats on six columns, then the first part decision on that state (which, for a
 * columnar rollup, decodes the stats of the columns the filter reads, or skips whole segments).
 * The shard is built with one rollup, 50 versions before the end ([[rollupEvery]]), so an open
 * reads one rollup plus 50 diffs, as the default interval (100) gives on average; each size is measured with its rollups columnar (as written) and
 * rewritten as JSON rollups ([[sparkpersist.shard.JsonRollups]], as the release before wrote
 * them), in the same run. The first open of a size includes this JVM's class loading and JIT
 * for that size; the median (of `Opens`, after `WarmUps` untimed opens) is a warm JVM opening the
 * shard with new store and log instances, so nothing is cached.
 *
 * Decisions: [[SkippedFilter]] (ids are ascending across parts, so segment summaries rule out
 * all segments but the first) and [[KeptFilter]] (every part's stats must be read), one after
 * the other on the same fresh state, one by one.
 *
 * Usage: `bench/runMain sparkpersist.bench.OpenShardBench [parts ...]`. Prints a table and
 * writes bench/out/open_shard.json; [[PlanningBench]] reports it beside the decision time.
 */
object OpenShardBench {
  private val PartsPerBatch = 100
  /** Opens measured: a multiple of the four ways of deciding, each the first decision of an open. */
  val Opens = 12
  private val WarmUps = 4
  /** From this many parts on, fewer opens (a JSON open of 1M parts takes about ten seconds). */
  private val LargeParts = 500000
  private val LargeOpens = 8
  private val LargeWarmUps = 4

  private val id = AttributeReference("id", LongType, nullable = false)()
  private val score = AttributeReference("score", DoubleType)()
  /** Rules out every part but batch 0's (ids ascend from 0 by 1e4 a part, 1e6 a batch). */
  val SkippedFilter: Expression = LessThan(id, Literal(1000000L))
  /** Kept or not part by part: scores are random per part. */
  val KeptFilter: Expression = GreaterThan(score, Literal(1.9))

  /** One first decision: of [[SkippedFilter]] ("id") or [[KeptFilter]] ("score"), over the cores or not, vectorized or not. */
  final case class Way(filter: String, parallel: Boolean, vectorized: Boolean)

  /** The four ways of each filter an open's first decisions cycle through (one way per open). */
  private val ways: IndexedSeq[(Boolean, Boolean)] =
    for (vectorized <- IndexedSeq(true, false); parallel <- IndexedSeq(false, true)) yield (parallel, vectorized)

  /**
   * One shard size opened with its rollups in `format` ("columnar", as written, or "json", as the
   * release before); `decideMs` the median first decision on a fresh state, by [[Way]].
   */
  final case class Row(format: String, parts: Int, batches: Int, stateFiles: Int, stateBytes: Long,
      bytesReadOnOpen: Long, buildMs: Long, firstOpenMs: Double, medianOpenMs: Double, medianOpenCpuMs: Double,
      decideMs: Map[Way, Double], skippedKept: Int, keptKept: Int) {
    def skippedDecideMs: Double = decideMs(Way("id", parallel = false, vectorized = true))
    def keptDecideMs: Double = decideMs(Way("score", parallel = false, vectorized = true))
    def skippedParallelMs: Double = decideMs(Way("id", parallel = true, vectorized = true))
    def keptParallelMs: Double = decideMs(Way("score", parallel = true, vectorized = true))
  }

  def main(args: Array[String]): Unit = {
    val rows = measureAll(if (args.isEmpty) Seq(1000, 10000, 100000) else args.toSeq.map(_.toInt))
    val table = report(rows)
    table.print()
    BenchOutput.write("open_shard.json", "open_shard",
      Seq("partsPerBatch" -> PartsPerBatch, "diffsAfterRollup" -> DiffsAfterRollup,
        "opens" -> Opens, "warmUps" -> WarmUps), table)
  }

  /**
   * Builds a shard of each size in a temporary directory, measures its opens with columnar
   * rollups, rewrites them as JSON rollups ([[JsonRollups]]), measures again, deletes it.
   */
  def measureAll(sizes: Seq[Int]): Seq[Row] = {
    val conf = new Configuration()
    sizes.flatMap { parts =>
      val root = Files.createTempDirectory("open-shard-bench").toFile
      try measure(root, parts, conf) finally FileUtils.deleteDirectory(root)
    }
  }

  private def measure(root: File, parts: Int, conf: Configuration): Seq[Row] = {
    val name = s"events_$parts"
    val batches = math.max(1, parts / PartsPerBatch)
    val buildMs = build(root, name, batches, conf)
    val columnar = opens(root, name, batches, conf).copy(buildMs = buildMs)
    JsonRollups.rewrite(new File(root, s"$name/state"))
    val json = opens(root, name, batches, conf).copy(format = "json", buildMs = buildMs)
    assert(json.skippedKept == columnar.skippedKept && json.keptKept == columnar.keptKept,
      s"JSON rollups decide other parts than columnar ones: $json, $columnar")
    Seq(columnar, json)
  }

  /**
   * Writes the shard `name` of `batches` batches; returns the time it took. Its log (holding the
   * whole state) is dropped on return, so a million parts are not held twice while opened.
   */
  def build(root: File, name: String, batches: Int, conf: Configuration): Long = {
    val rnd = new Random(batches.toLong * PartsPerBatch)
    val buildStart = System.nanoTime()
    val log = new ShardStore(root.toURI.toString, conf, rollupEvery(batches)).create(name, ShardFixtures.eventSchema).log
    (0 until batches).foreach { i =>
      val lower = i * 1000L
      log.compareAndAppend(lower, ShardFixtures.eventBatch(s"b$i", lower, lower + 1000, PartsPerBatch, rnd))
    }
    (System.nanoTime() - buildStart) / 1000000
  }

  /** Diffs after the newest rollup that an open reads: about the average with the default interval. */
  private val DiffsAfterRollup = 50

  /**
   * The rollup interval a shard of `batches` batches is built with: one rollup, [[DiffsAfterRollup]]
   * versions before the end (half-way for shards of fewer batches), so an open reads one rollup
   * and the diffs after it, as with the default interval on average, while the build writes one
   * rollup instead of one every 100 versions (a million parts would write 10,000 rollups' worth).
   */
  private def rollupEvery(batches: Int): Long = math.max(1, batches - math.min(DiffsAfterRollup, batches / 2))

  private def opens(root: File, name: String, batches: Int, conf: Configuration): Row = {
    val threads = ManagementFactory.getThreadMXBean
    val schema = ShardFixtures.eventSchema
    // One by one, or over the machine's cores as a scan of that many parts decides them (PartDecisions),
    // vectorized (as scans decide) or by the interpreter alone.
    def decide(state: ShardState, filter: Expression, parallel: Boolean, vectorized: Boolean): (Int, Double) = {
      val decision = PartPruning.decide(filter, schema, MzNowSpec.at(0L), vectorized = vectorized)
      val parts = state.parts.toIndexedSeq
      // The open leaves gigabytes of garbage at a million parts: collect it first, so that a pause it
      // causes is not counted as deciding (which allocates little, vectorized).
      System.gc()
      Bench.timedMs {
        // As a scan decides: segments first, so only the kept segments' stats are read.
        decision.prepare(parts)
        parts.size - PartDecisions.decide(parts.size,
          i => parts(i).stats.fold[PartDecision](PartDecision.Undecided)(decision.decision),
          parallelFrom = if (parallel) 1 else 0).ruledOut.cardinality
      }
    }
    // Each open decides both filters one way, cycling through the ways: every first decision is on a fresh state.
    var opened = 0
    def timedOpen(): (Double, Double, Seq[(Way, Double)], Int, Int) = {
      val (start, cpuStart) = (System.nanoTime(), threads.getCurrentThreadCpuTime)
      val state = new ShardStore(root.toURI.toString, conf).open(name).state
      val (openMs, cpuMs) = ((System.nanoTime() - start) / 1e6, (threads.getCurrentThreadCpuTime - cpuStart) / 1e6)
      assert(state.partCount == batches * PartsPerBatch && state.batches.size == batches,
        s"opened ${state.partCount} parts in ${state.batches.size} batches")
      val (parallel, vectorized) = ways(opened % ways.size)
      opened += 1
      val (skippedKept, skippedMs) = decide(state, SkippedFilter, parallel, vectorized)
      val (keptKept, keptMs) = decide(state, KeptFilter, parallel, vectorized)
      (openMs, cpuMs, Seq(Way("id", parallel, vectorized) -> skippedMs, Way("score", parallel, vectorized) -> keptMs),
        skippedKept, keptKept)
    }
    val large = batches * PartsPerBatch >= LargeParts
    val first = timedOpen()
    opened = 0
    (1 to (if (large) LargeWarmUps else WarmUps)).foreach(_ => timedOpen())
    val runs = (1 to (if (large) LargeOpens else Opens)).map(_ => timedOpen())
    assert(runs.forall(r => r._4 == first._4 && r._5 == first._5), "the ways of deciding keep different parts")
    val files = new File(root, s"$name/state").listFiles().toSeq.filter(_.getName.endsWith(".json"))
    val (rollups, versions) = files.partition(_.getName.startsWith("rollup-"))
    val newestRollup = rollups.maxByOption(_.getName)
    val readOnOpen = newestRollup.map(_.length).getOrElse(0L) +
      versions.filter(v => newestRollup.forall(r => v.getName > r.getName.stripPrefix("rollup-"))).map(_.length).sum
    Row("columnar", batches * PartsPerBatch, batches, files.size, files.map(_.length).sum, readOnOpen, 0,
      first._1, median(runs.map(_._1)), median(runs.map(_._2)),
      runs.flatMap(_._3).groupBy(_._1).map { case (way, ms) => way -> median(ms.map(_._2)) }, first._4, first._5)
  }

  private def report(rows: Seq[Row]): Table = {
    import Table.Column
    def interpreted(r: Row, filter: String, parallel: Boolean) = r.decideMs(Way(filter, parallel, vectorized = false))
    Table(s"Cold open of a shard ($PartsPerBatch parts per batch, 6 columns of stats, one rollup and the " +
      s"$DiffsAfterRollup versions after it; first open, then median of $Opens after $WarmUps warm-ups, " +
      "its thread CPU time, and the first decisions on the opened state, vectorized and interpreted), " +
      "columnar vs JSON rollups",
      Seq(Column("rollup", "format"), Column("parts", "parts"), Column("batches", "batches"), Column("files", "stateFiles"),
        Column("state MB", "stateMB"), Column("read MB", "readMB"), Column("build s", "buildSeconds"),
        Column("first ms", "firstOpenMs"), Column("median ms", "medianOpenMs"), Column("cpu ms", "medianOpenCpuMs"),
        Column("decide id ms", "skippedDecideMs", 2), Column("decide score ms", "keptDecideMs", 2),
        Column("parallel id ms", "skippedParallelMs", 2), Column("parallel score ms", "keptParallelMs", 2),
        Column("interp. id ms", "interpretedSkippedDecideMs", 2), Column("interp. score ms", "interpretedKeptDecideMs", 2),
        Column("interp. parallel id ms", "interpretedSkippedParallelMs", 2),
        Column("interp. parallel score ms", "interpretedKeptParallelMs", 2),
        Column("interp. ÷ vectorized, parallel score", "keptParallelRatio", 2),
        Column("id kept", "skippedKept"), Column("score kept", "keptKept")),
      rows.map(r => Seq[Any](r.format, r.parts, r.batches, r.stateFiles, r.stateBytes / 1e6, r.bytesReadOnOpen / 1e6,
        r.buildMs / 1e3, r.firstOpenMs, r.medianOpenMs, r.medianOpenCpuMs, r.skippedDecideMs, r.keptDecideMs,
        r.skippedParallelMs, r.keptParallelMs, interpreted(r, "id", parallel = false), interpreted(r, "score", parallel = false),
        interpreted(r, "id", parallel = true), interpreted(r, "score", parallel = true),
        interpreted(r, "score", parallel = true) / r.keptParallelMs, r.skippedKept, r.keptKept)),
      Seq(s"decide id: ${SkippedFilter.sql}; decide score: ${KeptFilter.sql}; first decisions on a fresh open, " +
        s"one by one or over ${Runtime.getRuntime.availableProcessors} cores (PartDecisions), with the vectorized " +
        "decision (as scans decide) or the interpreter alone: each open decides one of the four ways, in turn, " +
        "each decision after a garbage collection (the open's garbage)",
        s"from $LargeParts parts on: $LargeOpens opens after $LargeWarmUps warm-ups",
        "the machine's load inflates wall times, CPU time less so"))
  }
}
