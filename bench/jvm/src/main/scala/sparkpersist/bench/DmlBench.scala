package sparkpersist.bench

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.functions.{col, lit, timestamp_millis, to_date, when}

import sparkpersist.bench.Bench.{arg, timedWithCpuMs}
import sparkpersist.scan.ScanReports

/**
 * Row-level operations (issue 32) on the same rows in a persist shard and a Delta 4.3.1 table with
 * deletion vectors on (its fastest setting for MERGE and DELETE): `rows` events over `days` days
 * (`id` unique, `day`, `event_ts`, `amount`, `country`), one part / file per day. In order, each
 * step on each system:
 *  - `read before`: `count(*), sum(amount)` over the whole table;
 *  - `MERGE`: a source updating 1 % of the keys (`amount + 1`) and inserting 0.1 % new ones
 *    (`WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`);
 *  - `read after MERGE`;
 *  - `DELETE 1 %`: `id % 100 = 13`;
 *  - `DELETE old days`: the first tenth of the days (whole parts and files);
 *  - `read after DELETEs`;
 *  - `compact` (ours: `CALL persist.system.compact` with no retention; Delta: `OPTIMIZE`), then
 *    `read after compaction`;
 *  - `last 7 days` (`event_ts` of the last 7 days) right after `read before` and after compaction.
 * Bytes and files written: what the step added under the table's directory (ours: parts; Delta:
 * data files, deletion vectors and the log); parts / files read: the parts the persist scan read,
 * Delta's `FileSourceScanExec` "number of files read". Results of the reads must agree. One run per
 * statement (the statements change the tables), three per read (the median reported, and the
 * first run beside it), the systems alternating, after a warm-up of the reads.
 *
 * `bench/runMain sparkpersist.bench.DmlBench [rows=10000000] [days=100]`. Prints a table and writes
 * bench/out/dml.json (plot.py draws dml.png).
 */
object DmlBench {
  private val Systems = Seq("ours", "delta")
  private val Start = 1767225600000L // 2026-01-01T00:00:00Z
  private val Day = 86400000L

  /** One step's result (reads), times, and what it wrote beside the `tableBytes` the table held before it. */
  final case class Step(result: String, wallMs: Double, cpuMs: Double, bytesWritten: Long, filesWritten: Long,
      tableBytes: Long, firstWallMs: Double, filesRead: Long)

  private object Plans extends AdaptiveSparkPlanHelper

  def main(args: Array[String]): Unit = {
    val rows = arg(args, 0, 10000000L)(_.toLong)
    val days = arg(args, 1, 100)(_.toInt)
    val root = Files.createTempDirectory("dml-bench").toFile
    val spark = Bench.persistAndDeltaSession("DmlBench", new File(root, "shards"))
    try {
      val deltaDir = new File(root, "delta/events")
      val dirs = Map("ours" -> new File(root, "shards/events/parts"), "delta" -> deltaDir)
      val tables = Map("ours" -> "persist.events", "delta" -> s"delta.`$deltaDir`")
      write(spark, rows, days, deltaDir)
      val changedIds = spark.range(0L, rows / 100, 1L, 4).select((col("id") * 100 + 7).as("id"))
        .unionByName(spark.range(rows, rows + rows / 1000, 1L, 4).toDF("id"))
      events(changedIds, rows, days).withColumn("amount", col("amount") + 1)
        .cache().createOrReplaceTempView("changes")
      spark.table("changes").count()
      val oldDays = s"to_date(timestamp_millis(${Start + days / 10 * Day}L))"
      val read = "SELECT count(*), sum(amount) FROM %s"
      val lastWeek = s"$read WHERE event_ts >= timestamp_millis(${Start + (days - 7) * Day}L)"
      val steps = Seq(
        "read before" -> read,
        "last 7 days" -> lastWeek,
        "DELETE old days" -> s"DELETE FROM %s WHERE day < $oldDays",
        "read after it" -> read,
        "MERGE" -> ("MERGE INTO %s t USING changes s ON t.id = s.id " +
          "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"),
        "read after MERGE" -> read,
        "DELETE 1 %" -> "DELETE FROM %s WHERE id % 100 = 13",
        "read after DELETE 1 %" -> read,
        "compact" -> "",
        "read after compaction" -> read,
        "last 7 days after compaction" -> lastWeek)
      // Warm-up: the reads, once per system.
      Systems.foreach(s => spark.sql(read.replace("%s", tables(s))).collect())
      val measured = steps.zipWithIndex.map { case ((name, statement), i) =>
        val order = if (i % 2 == 0) Systems else Systems.reverse
        name -> order.map { system =>
          val sql = if (name == "compact") compaction(system, tables(system)) else statement.replace("%s", tables(system))
          system -> step(spark, sql, dirs(system), system)
        }.toMap
      }
      val table = report(measured, rows, days)
      table.print()
      BenchOutput.write("dml.json", "dml", Seq("rows" -> rows, "days" -> days, "spark" -> spark.version), table)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  private def compaction(system: String, table: String): String =
    if (system == "ours") "CALL persist.system.compact(shard => 'events', retention_ms => 0)" else s"OPTIMIZE $table"

  /** The events of `ids` (a frame of bigint `id`) out of `rows` over `days` days: event `id` on day `id * days / rows`. */
  private def events(ids: org.apache.spark.sql.DataFrame, rows: Long, days: Int) = {
    val span = days * Day
    ids.select(
      col("id"),
      timestamp_millis(lit(Start) + (col("id") * span / rows).cast("bigint")).as("event_ts"),
      (col("id") % 1000).cast("double").as("amount"),
      when(col("id") % 3 === 0, "US").otherwise("DE").as("country"))
      .withColumn("day", to_date(col("event_ts")))
  }

  /** The same events in the shard `persist.events` (one part per day) and the Delta table at `deltaDir`. */
  private def write(spark: SparkSession, rows: Long, days: Int, deltaDir: File): Unit = {
    val df = events(spark.range(0L, rows, 1L, days).toDF("id"), rows, days)
    spark.sql("CREATE TABLE persist.events (id BIGINT, event_ts TIMESTAMP, amount DOUBLE, country STRING, day DATE) " +
      "TBLPROPERTIES ('order_by' = 'event_ts')")
    val (_, oursMs) = Bench.timedMs(df.writeTo("persist.events").option("max_rows_per_part", ((rows + days - 1) / days).toString).append())
    spark.sql(s"CREATE TABLE delta.`$deltaDir` (id BIGINT, event_ts TIMESTAMP, amount DOUBLE, country STRING, day DATE) " +
      "USING delta TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    val (_, deltaMs) = Bench.timedMs(df.write.format("delta").mode("append").save(deltaDir.toString))
    println(f"events written: ours in ${oursMs / 1e3}%.1f s, delta in ${deltaMs / 1e3}%.1f s")
  }

  /**
   * Runs `sql`, measuring its time and the bytes and files it added under `dir`: a read (which
   * changes nothing) three times, its median run reported beside its first. `spark.sql` is timed
   * too: a statement (MERGE, DELETE, CALL, OPTIMIZE) runs there, not in `collect`. A statement's
   * own result (rows affected, the compaction's parts and rounds, OPTIMIZE's metrics) is printed.
   */
  private def step(spark: SparkSession, sql: String, dir: File, system: String): Step = {
    val before = files(dir)
    val read = sql.startsWith("SELECT")
    val runs = Seq.fill(if (read) 3 else 1) {
      val ((df, result), wallMs, cpuMs) = timedWithCpuMs {
        val df = spark.sql(sql)
        (df, df.collect())
      }
      (result, wallMs, cpuMs, if (read) filesRead(spark, df, system) else 0L)
    }
    val (result, wallMs, cpuMs, filesReadByIt) = runs.sortBy(_._2).apply(runs.size / 2)
    if (!read) println(s"$system: ${sql.take(80)}\n  -> ${result.map(r => r.schema.names.zip(r.toSeq).mkString(", ")).mkString("; ")}")
    val added = files(dir) -- before.keySet
    Step(if (read) result.head.toSeq.mkString("/") else "", wallMs, cpuMs,
      added.values.sum, added.keys.count(f => f.endsWith(".parquet") || f.endsWith(".bin")), before.values.sum,
      runs.head._2, filesReadByIt)
  }

  /** The parts (ours) or files (Delta) the read `df` just run read. */
  private def filesRead(spark: SparkSession, df: org.apache.spark.sql.DataFrame, system: String): Long =
    if (system == "ours") ScanReports.last(spark).map(_.metrics.partsKept).sum
    else Plans.collect(df.queryExecution.executedPlan) { case s: FileSourceScanExec => s.metrics("numFiles").value }.sum

  private def files(dir: File): Map[String, Long] =
    if (!dir.exists()) Map.empty
    else FileUtils.listFiles(dir, null, true).asScala.filterNot(_.getName.endsWith(".crc"))
      .map(f => f.getPath -> f.length).toMap

  private def report(measured: Seq[(String, Map[String, Step])], rows: Long, days: Int): Table = {
    import Table.Column
    val lines = measured.flatMap { case (name, bySystem) =>
      val ours = bySystem("ours")
      if (ours.result.nonEmpty) {
        require(bySystem("delta").result == ours.result, s"delta read ${bySystem("delta").result}, ours ${ours.result} ($name)")
      }
      Systems.map { system =>
        val s = bySystem(system)
        Seq[Any](name, system, s.result, s.wallMs, s.wallMs / ours.wallMs, s.cpuMs, s.firstWallMs, s.filesRead,
          s.bytesWritten, 100.0 * s.bytesWritten / math.max(1L, s.tableBytes), s.filesWritten)
      }
    }
    Table(s"DML: $rows events over $days days (one part / file per day), persist shard vs Delta 4.3.1 with deletion " +
      "vectors; local[2], steps in order, systems alternating; a read's median of 3 runs (and its first run)",
      Seq(Column("step", "step"), Column("system", "system"), Column("result", "result"), Column("wall ms", "wallMs"),
        Column("time / ours", "timeRatio", 2), Column("CPU ms", "cpuMs"), Column("first run ms", "firstWallMs"),
        Column("parts / files read", "filesRead"),
        Column("bytes written", "bytesWritten"), Column("% of the table", "writtenPct", 2),
        Column("data files written", "filesWritten")),
      lines,
      Seq("MERGE: 1 % of the keys updated, 0.1 % new; DELETE 1 %: id % 100 = 13; DELETE old days: the first tenth; " +
          "last 7 days: event_ts of the last 7 days.",
        "parts / files read (reads): ours = parts the scan read; delta = FileSourceScanExec 'number of files read'.",
        "bytes / files written: what the step added under the table's directory (ours: parts and positions files " +
          "(.bin); Delta: data files, deletion vectors (.bin) and its log).",
        "compact: ours CALL persist.system.compact with no retention; Delta OPTIMIZE."))
  }
}
