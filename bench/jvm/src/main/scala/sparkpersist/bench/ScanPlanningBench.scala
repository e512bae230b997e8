package sparkpersist.bench

import java.io.File
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec

import sparkpersist.PersistConf
import sparkpersist.bench.Bench.{arg, intList, median}
import sparkpersist.scan.ScanReports

/**
 * What planning a query on a large shard costs its user: `spark.table(...).filter(f)` planned
 * by Spark down to the scan's tasks (analysis, optimization with the part decision, physical
 * planning, input partitions), with no part read (the bench's parts have metadata only).
 *
 * For each filter, a new session's first query (it opens the shard: the newest rollup and the
 * versions after it, then loads the stats columns the filter reads), then the median of `runs`
 * later queries, with the catalog keeping the shard open (`spark.sparkpersist.catalog.openShards`,
 * the default) and, side by side, with the interpreter deciding every part
 * (`spark.sparkpersist.read.vectorizedDecision = false`) and reopening it at every query
 * (`openShards = 0`), as before.
 * Shards are built as [[OpenShardBench]] builds them (batches of 100 parts with six columns of
 * stats; ids ascend, so `id < 1000000` keeps batch 0's parts and segment summaries skip the
 * rest; `score > 1.9` decides every part).
 *
 * `bench/runMain sparkpersist.bench.ScanPlanningBench [parts=100000,1000000] [runs=5]`; prints a
 * table and writes bench/out/scan_planning.json.
 */
object ScanPlanningBench {
  private val Filters = Seq("id < 1000000", "score > 1.9")

  def main(args: Array[String]): Unit = {
    val sizes = arg(args, 0, Seq(100000, 1000000))(intList)
    val runs = arg(args, 1, 5)(_.toInt)
    val root = Files.createTempDirectory("scan-planning-bench").toFile
    val spark = Bench.persistSession("ScanPlanningBench", root)
    val rows = try sizes.flatMap(parts => measure(spark, root, parts, runs)) finally {
      spark.stop()
      FileUtils.deleteDirectory(root)
    }
    import Table.Column
    val table = Table(s"Planning a query on a shard of many parts (down to the scan's tasks): a new session's " +
      s"first query, then the median of $runs with the shard kept open by the catalog and reopened at every query",
      Seq(Column("parts", "parts"), Column("filter", "filter"), Column("parts read", "partsRead"),
        Column("first ms", "firstMs"), Column("kept open ms", "keptOpenMs", 2), Column("kept open cpu ms", "keptOpenCpuMs", 2),
        Column("interp. ms", "interpretedMs", 2), Column("interp. cpu ms", "interpretedCpuMs", 2),
        Column("interp. / kept open", "interpretedRatio", 2),
        Column("reopened ms", "reopenedMs", 2), Column("reopened cpu ms", "reopenedCpuMs", 2),
        Column("reopened / kept open", "ratio", 2)),
      rows,
      Seq("first: a new session's first query with that filter (opens the shard, loads the stats columns it reads)",
        "kept open: spark.sparkpersist.catalog.openShards = 16 (default); reopened: = 0, the shard opened at every query",
        "interp.: kept open, with spark.sparkpersist.read.vectorizedDecision = false (the interpreter decides every part)",
        "cpu: this process's CPU time (Spark's local threads and the part decision over the driver's cores)",
        "the machine's load inflates wall times"))
    table.print()
    BenchOutput.write("scan_planning.json", "scan_planning", Seq("runs" -> runs), table)
  }

  private def measure(spark: SparkSession, root: File, parts: Int, runs: Int): Seq[Seq[Any]] = {
    val name = s"events_$parts"
    val buildMs = OpenShardBench.build(root, name, math.max(1, parts / 100), spark.sessionState.newHadoopConf())
    println(f"$name: built in ${buildMs / 1e3}%.1f s")
    try Filters.map { filter =>
      val (partsRead, firstMs) = {
        val fresh = spark.newSession()
        plan(fresh, name, filter)
      }
      val keptOpen = timed(spark.newSession(), name, filter, runs)
      val interpreting = spark.newSession()
      interpreting.conf.set(PersistConf.VectorizedDecision.key, "false")
      val interpreted = timed(interpreting, name, filter, runs)
      val reopening = spark.newSession()
      reopening.conf.set(PersistConf.OpenShards.key, "0")
      val reopened = timed(reopening, name, filter, runs)
      Seq[Any](parts, filter, partsRead, firstMs, keptOpen._1, keptOpen._2, interpreted._1, interpreted._2,
        interpreted._1 / keptOpen._1, reopened._1, reopened._2, reopened._1 / keptOpen._1)
    } finally FileUtils.deleteDirectory(new File(root, name))
  }

  /** The median wall and CPU ms of `runs` plans in `session`, after one untimed plan. */
  private def timed(session: SparkSession, name: String, filter: String, runs: Int): (Double, Double) = {
    plan(session, name, filter)
    val times = (1 to runs).map(_ => Bench.timedWithCpuMs(plan(session, name, filter)))
    (median(times.map(_._2)), median(times.map(_._3)))
  }

  /** Plans the query down to its tasks: the parts its scan reads, and the wall time in ms. */
  private def plan(session: SparkSession, name: String, filter: String): (Long, Double) = {
    val (_, ms) = Bench.timedMs {
      val plan = session.table(s"persist.$name").filter(filter).queryExecution.executedPlan
      plan.collectLeaves().collect { case b: BatchScanExec => b.inputRDD.partitions.length }
    }
    (ScanReports.last(session).map(_.metrics.partsKept).sum, ms)
  }
}
