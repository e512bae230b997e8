package sparkpersist.bench

import java.io.File
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.functions.{col, lit, timestamp_millis, to_date}

import sparkpersist.PersistConf
import sparkpersist.bench.Bench.{arg, median, timedWithCpuMs}
import sparkpersist.catalog.SessionShards
import sparkpersist.scan.ScanReports
import sparkpersist.schema.{NestedNullability, ShardSchema}
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Aggregates answered from statistics (issue 33): 90 days of events as the demo's shard has them
 * (`event_ts` rising part after part, a `day` column, one batch), in `parts` parts for each entry of
 * `shapes`, on the same rows as a persist shard, a Delta table and plain Parquet (partition i of
 * each holds the events of part i). Three queries:
 *  - `window`: `count(*)` over the last 7 days (a literal bound, the same for every system);
 *  - `min/max/count`: unfiltered `min(event_ts), max(event_ts), count(*)`;
 *  - `by day`: `count(*)` grouped by `day`, folded into one row (groups and a hash of them).
 * Ours answers the parts wholly inside the window (every part, unfiltered; every part, grouped by a
 * day constant in each) from their statistics and reads only the parts straddling the window's
 * start. Delta 4.3.1 (`optimizeMetadataQuery` on, its default) and Parquet read what they read.
 * Then `DELETE` of 1 % of the rows (`n % 100 = 0`, in every part) in ours and in Delta, and
 * `window` again (`window after DELETE`): ours answers `count(*)` of each part from its row count
 * less the positions the DELETE retracted and reads the DELETE's own parts and the straddling
 * ones; beside it, ours with answers from statistics off (`ours, stats off`), which is what every
 * query read after a retraction before (issue 48).
 *
 * Each system runs in one process, alternating, median of `runs` after a warm-up; results must
 * agree. Files read: ours, the scan's parts read (and answered from statistics); Delta and Parquet,
 * `FileSourceScanExec` "number of files read" (0 when no file scan ran).
 *
 * `bench/runMain sparkpersist.bench.AggregateBench [shapes=360,10000] [rows=900000] [runs=5]`.
 * Prints a table and writes bench/out/aggregates.json (plot.py draws aggregates.png).
 */
object AggregateBench {
  /** Collects through adaptive plans and their query stages (AQE stays on, as users run). */
  private object Stages extends AdaptiveSparkPlanHelper
  private val Systems = Seq("ours", "delta", "parquet")
  /** Ours with answers from statistics off: what ours read after any retraction before issue 48. */
  private val StatsOff = "ours, stats off"
  /** The order systems are reported in. */
  private val Reported = Seq("ours", StatsOff, "delta", "parquet")
  /** The rows the DELETE removes: 1 % of them, in every part. */
  private val Deleted = "n % 100 = 0"
  private val Start = 1767225600000L // 2026-01-01T00:00:00Z
  private val Day = 86400000L
  private val Days = 90

  final case class Run(result: String, filesRead: Long, fromStats: Long, wallMs: Double, cpuMs: Double)

  def main(args: Array[String]): Unit = {
    val shapes = arg(args, 0, Seq(360, 10000))(Bench.intList)
    val rows = arg(args, 1, 900000L)(_.toLong)
    val runs = arg(args, 2, 5)(_.toInt)
    val root = Files.createTempDirectory("aggregate-bench").toFile
    val spark = Bench.persistAndDeltaSession("AggregateBench", new File(root, "shards"))
    try {
      val windowStart = Start + (Days - 7) * Day
      val queries = Seq(
        "window" -> s"SELECT count(*) FROM %s WHERE event_ts >= timestamp_millis(${windowStart}L)",
        "min/max/count" -> "SELECT min(event_ts), max(event_ts), count(*) FROM %s",
        "by day" -> "SELECT count(*), sum(hash(day, c)) FROM (SELECT day, count(*) AS c FROM %s GROUP BY day)")
      val measured = shapes.flatMap { parts =>
        val tables = write(spark, root, parts, rows)
        val straddling = parts.toLong * 7 * Day / (Days * Day) match {
          case whole if whole * Days * Day == parts.toLong * 7 * Day => 0L
          case _ => 1L
        }
        def measure(name: String, query: String, systems: Seq[String]) = {
          val byRound = Bench.rounds(runs) { r =>
            val order = systems.drop(r % systems.size) ++ systems.take(r % systems.size)
            order.map(system => system -> run(spark, system, query.format(tables(system))))
          }
          (parts, name, straddling) -> byRound.map { case (system, rs) =>
            system -> rs.head.copy(wallMs = median(rs.map(_.wallMs)), cpuMs = median(rs.map(_.cpuMs)))
          }
        }
        val before = queries.map { case (name, query) => measure(name, query, Systems) }
        Seq("ours", "delta").foreach(system => spark.sql(s"DELETE FROM ${tables(system)} WHERE $Deleted").collect())
        before :+ measure("window after DELETE", queries.head._2, Seq("ours", StatsOff, "delta"))
      }
      val table = report(measured, rows, runs)
      table.print()
      BenchOutput.write("aggregates.json", "aggregates", Seq("shapes" -> shapes.mkString(","), "rows" -> rows,
        "runs" -> runs, "spark" -> spark.version), table)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  /** `rows` events over 90 days in `parts` partitions, `event_ts` rising: partition i covers 90 days / `parts`. */
  private def events(spark: SparkSession, parts: Int, rows: Long): DataFrame = {
    val spanMs = Days * Day
    spark.range(0L, rows, 1L, parts).select(
      timestamp_millis(lit(Start) + (col("id") * spanMs / rows).cast("bigint")).as("event_ts"),
      col("id").as("n"),
      (col("id") % 1000).cast("double").as("amount"))
      .withColumn("day", to_date(col("event_ts")))
  }

  /** The same events as `events_<parts>` in each system; their table names. */
  private def write(spark: SparkSession, root: File, parts: Int, rows: Long): Map[String, String] = {
    val df = events(spark, parts, rows)
    val name = s"events_$parts"
    val dirs = Map("delta" -> new File(root, s"delta/$name"), "parquet" -> new File(root, s"parquet/$name"))
    val writes = Seq(
      "ours" -> (() => {
        val shard = SessionShards.store(spark).create(name, ShardSchema.fromStruct(NestedNullability.relaxedSchema(df.schema)))
        ShardWriter.write(df, shard, WriteOptions(maxRowsPerPart = Some((rows + parts - 1) / parts)))
      }),
      "delta" -> (() => df.write.format("delta").save(dirs("delta").toString)),
      "parquet" -> (() => df.write.parquet(dirs("parquet").toString)))
    writes.foreach { case (system, w) =>
      val (_, ms) = Bench.timedMs(w())
      println(f"$name $system%-8s written in ${ms / 1e3}%.1f s")
    }
    Map("ours" -> s"persist.$name", StatsOff -> s"persist.$name", "delta" -> s"delta.`${dirs("delta")}`",
      "parquet" -> s"parquet.`${dirs("parquet")}`")
  }

  private def run(spark: SparkSession, system: String, query: String): Run = {
    spark.conf.set(PersistConf.StatsAggregates.key, system != StatsOff)
    val df = spark.sql(query)
    val (result, wallMs, cpuMs) = try timedWithCpuMs(df.collect()) finally spark.conf.unset(PersistConf.StatsAggregates.key)
    val (files, fromStats) = if (system.startsWith("ours")) {
      ScanReports.last(spark) match {
        case Seq(scan) => (scan.metrics.partsKept, scan.metrics.partsFromStats)
        case other => throw new IllegalStateException(s"expected one persist scan for $query, got ${other.size}")
      }
    } else {
      (Stages.collect(df.queryExecution.executedPlan) { case s: FileSourceScanExec => s.metrics("numFiles").value }.sum, 0L)
    }
    Run(result.head.toSeq.mkString("/"), files, fromStats, wallMs, cpuMs)
  }

  private def report(measured: Seq[((Int, String, Long), Map[String, Run])], rows: Long, runs: Int): Table = {
    import Table.Column
    val lines = measured.flatMap { case ((parts, query, straddling), bySystem) =>
      val ours = bySystem("ours")
      Reported.filter(bySystem.contains).map { system =>
        val r = bySystem(system)
        require(r.result == ours.result, s"$system answered ${r.result}, ours ${ours.result} ($query, $parts parts)")
        Seq[Any](parts, query, system, r.result, r.filesRead, r.fromStats, if (query.startsWith("window")) straddling else 0L,
          r.wallMs, r.wallMs / ours.wallMs, r.cpuMs)
      }
    }
    Table(s"Aggregates: $rows events over $Days days, one batch, in each number of parts; local[2], median of " +
      s"$runs alternating runs after a warm-up",
      Seq(Column("parts", "parts"), Column("query", "query"), Column("system", "system"), Column("result", "result"),
        Column("files/parts read", "filesRead"), Column("parts from stats", "fromStats"),
        Column("parts straddling", "straddling"), Column("wall ms", "wallMs"), Column("time / ours", "timeRatio", 2),
        Column("CPU ms", "cpuMs")),
      lines,
      Seq("window: count(*) of the last 7 days; min/max/count: unfiltered; by day: count(*) grouped by day, folded.",
        s"window after DELETE: window again after DELETE ... WHERE $Deleted (1 % of the rows, in every part) in ours and " +
          s"Delta; '$StatsOff': ours with ${PersistConf.StatsAggregates.key} = false, what ours read after any retraction before.",
        "parts straddling: the parts a window query must read (those holding events on both sides of its start).",
        "ours: the persist scan's parts read and answered from statistics; delta / parquet: FileSourceScanExec " +
          "'number of files read' (0 when the answer came from Delta's log)."))
  }
}
