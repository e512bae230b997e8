package sparkpersist.bench

import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.functions.{col, concat, lit}

import sparkpersist.PersistConf
import sparkpersist.bench.Bench.{arg, median, timedMs}
import sparkpersist.catalog.SessionShards
import sparkpersist.scan.ScanMetrics
import sparkpersist.schema.ShardSchema
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * A point lookup `SELECT * FROM t WHERE id = k` in large parts: `parts` parts of `rowsPerPart`
 * rows `(id, k, v)` ordered by id, written in row groups of 8 MB (`parquet.block.size`), read
 *  - as `persist.points` with part pruning on (whole parts skipped by their statistics, then
 *    the filter handed to Parquet inside the part read),
 *  - as `persist.points` with part pruning off (every part opened, the filter inside each),
 *  - as plain Parquet: the same part files through `spark.read.parquet` (Spark's own row-group
 *    and page-index skipping).
 * For each: parts (files) opened, row groups read of those in the opened parts (ours, from the
 * scan metrics), rows the scan returned to Spark (what the reader decoded and kept), and wall
 * time; the median over `runs` alternating rounds of the lookups of 3 keys, local[2], AQE off.
 *
 * `bench/runMain sparkpersist.bench.PointLookupBench [rowsPerPart=5000000] [parts=2] [runs=5]`;
 * prints a table and writes bench/out/point_lookup.json.
 */
object PointLookupBench {

  final case class Run(rows: Long, partsRead: Long, rowGroups: String, scanRows: Long, wallMs: Double)

  def main(args: Array[String]): Unit = {
    val rowsPerPart = arg(args, 0, 5000000L)(_.toLong)
    val parts = arg(args, 1, 2)(_.toInt)
    val runs = arg(args, 2, 5)(_.toInt)
    val root = Files.createTempDirectory("point-lookup-bench").toFile
    val spark = Bench.persistSession("PointLookupBench", root, conf = Map("spark.sql.adaptive.enabled" -> "false"))
    try {
      val total = rowsPerPart * parts
      val shard = SessionShards.store(spark).create("points",
        ShardSchema.fromStruct(data(spark, 0, 1, 1).schema, Seq("id")))
      val (_, ms) = timedMs {
        spark.conf.set("parquet.block.size", (8L << 20).toString)
        ShardWriter.write(data(spark, 0, total, parts), shard, WriteOptions(maxRowsPerPart = Some(rowsPerPart)))
        spark.conf.unset("parquet.block.size")
      }
      println(f"points: ${shard.state.partCount} parts of $rowsPerPart rows written in ${ms / 1e3}%.1f s")
      spark.read.parquet(shard.state.parts.map(p => shard.partPath(p).toString).toSeq: _*).createOrReplaceTempView("plain")
      val keys = Seq(total / 3, total / 2 + 17, total - 5)
      val systems: Seq[(String, String, Option[String])] = Seq(
        ("ours, part pruning on", "persist.points", Some("on")),
        ("ours, part pruning off", "persist.points", Some("off")),
        ("plain Parquet", "plain", None))
      val measured = Bench.rounds(runs) { r =>
        val order = systems.drop(r % systems.size) ++ systems.take(r % systems.size)
        for ((name, table, mode) <- order; key <- keys) yield (name, key) -> run(spark, table, mode, key)
      }
      val rows = for ((name, _, _) <- systems) yield {
        val byKey = keys.map(k => measured((name, k)))
        require(byKey.forall(_.forall(_.rows == 1)), s"$name: a lookup did not find exactly one row")
        name -> byKey.head.head.copy(wallMs = median(byKey.flatten.map(_.wallMs)))
      }
      report(rowsPerPart, parts, runs, rows)
    } finally {
      spark.stop()
      FileUtils.deleteDirectory(root)
    }
  }

  private def data(spark: SparkSession, from: Long, until: Long, partitions: Int): DataFrame =
    spark.range(from, until, 1, partitions).select(col("id"),
      concat(lit("key-"), (col("id") % 1000).cast("string")).as("k"), (col("id") * 0.5).as("v"))

  private def run(spark: SparkSession, table: String, mode: Option[String], key: Long): Run = {
    mode.foreach(spark.conf.set(PersistConf.PushdownMode.key, _))
    val df = spark.sql(s"SELECT * FROM $table WHERE id = $key")
    val (rows, ms) = timedMs(df.collect())
    df.queryExecution.executedPlan.collectFirst {
      case b: BatchScanExec =>
        Run(rows.length, b.metrics(ScanMetrics.PartsKept).value,
          s"${b.metrics(ScanMetrics.RowGroupsRead).value}/${b.metrics(ScanMetrics.RowGroupsTotal).value}",
          b.metrics("numOutputRows").value, ms)
      case f: FileSourceScanExec =>
        Run(rows.length, f.metrics("numFiles").value, "-", f.metrics("numOutputRows").value, ms)
    }.get
  }

  private def report(rowsPerPart: Long, parts: Int, runs: Int, results: Seq[(String, Run)]): Unit = {
    import Table.Column
    val plain = results.last._2.wallMs
    val table = Table(s"Point lookup id = k in $parts parts of $rowsPerPart rows (8 MB row groups), local[2], " +
      s"median of 3 keys x $runs alternating runs after a warm-up",
      Seq(Column("read", "read"), Column("parts opened", "partsRead"), Column("row groups read", "rowGroups"),
        Column("rows from scan", "scanRows"), Column("wall ms", "wallMs"), Column("time / plain Parquet", "timeRatio", 2)),
      results.map { case (name, r) => Seq[Any](name, r.partsRead, r.rowGroups, r.scanRows, r.wallMs, r.wallMs / plain) },
      Seq("row groups read: of the row groups in the parts opened, those Parquet's filters left to read " +
        "(plain Parquet reads the same files with the same reader and filters; Spark reports no row-group count)"))
    table.print()
    BenchOutput.write("point_lookup.json", "point_lookup", Seq("rowsPerPart" -> rowsPerPart, "parts" -> parts,
      "runs" -> runs), table)
  }
}
