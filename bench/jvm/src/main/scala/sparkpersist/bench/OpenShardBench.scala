package sparkpersist.bench

import java.io.File
import java.lang.management.ManagementFactory
import java.nio.file.Files

import scala.util.Random

import org.apache.commons.io.FileUtils
import org.apache.hadoop.conf.Configuration

import sparkpersist.PersistConf
import sparkpersist.bench.Bench.median
import sparkpersist.shard.{ShardFixtures, ShardStore}
import sparkpersist.stats.StatsCodec

/**
 * How long a cold open of a shard takes (a new store and state log, as a fresh driver has):
 * `ShardStore.open(name).state` for shards of 1k, 10k and 100k parts written as batches of 100
 * parts, each part with stats on six columns. The state is rolled up every
 * `PersistConf.RollupEvery` (default) versions, so an open reads one rollup plus fewer diffs.
 * The first open of a size includes this JVM's class loading and JIT for that size; the median
 * (of `Opens`, after `WarmUps` untimed opens) is a warm JVM opening the shard with new store and
 * log instances, so nothing is cached.
 *
 * Usage: `bench/runMain sparkpersist.bench.OpenShardBench [parts ...]`. Prints a table and
 * writes bench/out/open_shard.json; [[PlanningBench]] reports it beside the decision time.
 */
object OpenShardBench {
  private val PartsPerBatch = 100
  val Opens = 10
  private val WarmUps = 5

  /** One shard size opened with its stats in `format` ("binary", as written, or "json", as the release before). */
  final case class Row(format: String, parts: Int, batches: Int, stateFiles: Int, stateBytes: Long,
      bytesReadOnOpen: Long, buildMs: Long, firstOpenMs: Double, medianOpenMs: Double, medianOpenCpuMs: Double)

  def main(args: Array[String]): Unit = {
    val rows = measureAll(if (args.isEmpty) Seq(1000, 10000, 100000) else args.toSeq.map(_.toInt))
    val table = report(rows)
    table.print()
    BenchOutput.write("open_shard.json", "open_shard",
      Seq("partsPerBatch" -> PartsPerBatch, "rollupEvery" -> PersistConf.RollupEvery.default,
        "opens" -> Opens, "warmUps" -> WarmUps), table)
  }

  /**
   * Builds a shard of each size in a temporary directory, measures its opens with binary stats,
   * rewrites its state with JSON stats ([[LegacyJsonState]]), measures again, deletes it.
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
    val rnd = new Random(parts)
    val buildStart = System.nanoTime()
    val log = new ShardStore(root.toURI.toString, conf).create(name, ShardFixtures.eventSchema).log
    (0 until batches).foreach { i =>
      val lower = i * 1000L
      log.compareAndAppend(lower, ShardFixtures.eventBatch(s"b$i", lower, lower + 1000, PartsPerBatch, rnd))
    }
    val buildMs = (System.nanoTime() - buildStart) / 1000000

    val binary = opens(root, name, batches, conf).copy(buildMs = buildMs)
    LegacyJsonState.rewrite(new File(root, s"$name/state"), StatsCodec(ShardFixtures.eventSchema))
    Seq(binary, opens(root, name, batches, conf).copy(format = "json", buildMs = buildMs))
  }

  private def opens(root: File, name: String, batches: Int, conf: Configuration): Row = {
    val threads = ManagementFactory.getThreadMXBean
    def timedOpen(): (Double, Double) = {
      val (start, cpuStart) = (System.nanoTime(), threads.getCurrentThreadCpuTime)
      val state = new ShardStore(root.toURI.toString, conf).open(name).state
      val times = ((System.nanoTime() - start) / 1e6, (threads.getCurrentThreadCpuTime - cpuStart) / 1e6)
      assert(state.partCount == batches * PartsPerBatch && state.batches.size == batches,
        s"opened ${state.partCount} parts in ${state.batches.size} batches")
      times
    }
    val (firstMs, _) = timedOpen()
    (1 to WarmUps).foreach(_ => timedOpen())
    val (openMs, cpuMs) = (1 to Opens).map(_ => timedOpen()).unzip
    val files = new File(root, s"$name/state").listFiles().toSeq.filter(_.getName.endsWith(".json"))
    val (rollups, versions) = files.partition(_.getName.startsWith("rollup-"))
    val newestRollup = rollups.maxByOption(_.getName)
    val readOnOpen = newestRollup.map(_.length).getOrElse(0L) +
      versions.filter(v => newestRollup.forall(r => v.getName > r.getName.stripPrefix("rollup-"))).map(_.length).sum
    Row("binary", batches * PartsPerBatch, batches, files.size, files.map(_.length).sum, readOnOpen, 0,
      firstMs, median(openMs), median(cpuMs))
  }

  private def report(rows: Seq[Row]): Table = {
    import Table.Column
    Table(s"Cold open of a shard ($PartsPerBatch parts per batch, 6 columns of stats, rollup every " +
      s"${PersistConf.RollupEvery.default} versions; first open, then median of $Opens after $WarmUps warm-ups, " +
      "and its thread CPU time)",
      Seq(Column("stats", "format"), Column("parts", "parts"), Column("batches", "batches"), Column("files", "stateFiles"),
        Column("state MB", "stateMB"), Column("read MB", "readMB"), Column("build s", "buildSeconds"),
        Column("first ms", "firstOpenMs"), Column("median ms", "medianOpenMs"), Column("cpu ms", "medianOpenCpuMs")),
      rows.map(r => Seq[Any](r.format, r.parts, r.batches, r.stateFiles, r.stateBytes / 1e6, r.bytesReadOnOpen / 1e6,
        r.buildMs / 1e3, r.firstOpenMs, r.medianOpenMs, r.medianOpenCpuMs)),
      Seq("the machine's load inflates wall times, CPU time less so"))
  }
}
