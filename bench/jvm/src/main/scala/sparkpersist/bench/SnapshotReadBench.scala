package sparkpersist.bench

import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, concat, lit}

import sparkpersist.bench.Bench.median
import sparkpersist.catalog.PersistCatalog
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.ShardStore
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Cost of snapshot reads through the persist catalog, against Spark reading the same Parquet
 * files directly: `SELECT count(*), sum(hash(id, k, v))` (every column decoded) over
 *  - `parquet`: the append-only shard's part files read with `spark.read.parquet`;
 *  - `snapshot (fast path)`: the same shard as `persist.appends` (no retractions);
 *  - `updates view`: `persist.appends.updates` (raw rows with time and diff);
 *  - `snapshot (consolidated)`: a shard with the same inserts plus retractions of 10% of the rows
 *    in a later batch, consolidated by key-range tasks (parallel k-way merges).
 * The four alternate in each of 5 rounds after a warm-up round; medians of wall and process CPU
 * time, local[2]. The Parquet view is defined once, outside the timing.
 *
 * Usage: `bench/runMain sparkpersist.bench.SnapshotReadBench [rows]` (default 1000000). Prints a
 * table and writes bench/out/snapshot_read.json.
 */
object SnapshotReadBench {
  private val Runs = 5
  private val Batches = 4

  final case class Row(name: String, rowsOut: Long, parts: Int, medianMs: Double, cpuMs: Double)

  def main(args: Array[String]): Unit = {
    val rows = args.headOption.map(_.toLong).getOrElse(1000000L)
    val root = Files.createTempDirectory("snapshot-read-bench").toFile
    val spark = SparkSession.builder().master("local[2]").appName("SnapshotReadBench")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.catalog.persist", classOf[PersistCatalog].getName)
      .config("spark.sql.catalog.persist.root", root.toURI.toString)
      .getOrCreate()
    try {
      val results = measureAll(spark, new ShardStore(root.toURI.toString, spark.sparkContext.hadoopConfiguration), rows)
      report(rows, results)
    } finally {
      spark.stop()
      FileUtils.deleteDirectory(root)
    }
  }

  private def data(spark: SparkSession, from: Long, until: Long): DataFrame =
    spark.range(from, until, 1, 2).select(col("id"), concat(lit("key-"), (col("id") % 1000).cast("string")).as("k"),
      (col("id") * 0.5).as("v"))

  private def measureAll(spark: SparkSession, store: ShardStore, rows: Long): Seq[Row] = {
    val schema = ShardSchema.fromStruct(data(spark, 0, 1).schema, orderBy = Seq("id"))
    val appends = store.create("appends", schema)
    val updates = store.create("updates", schema)
    val step = rows / Batches
    (0 until Batches).foreach { b =>
      val batch = data(spark, b * step, (b + 1) * step)
      ShardWriter.write(batch, appends, WriteOptions())
      ShardWriter.write(batch.withColumn("time", lit(b.toLong)).withColumn("diff", lit(1L)), updates,
        WriteOptions(Some("time"), Some("diff")))
    }
    val retractions = data(spark, 0, rows).where(col("id") % 10 === 0)
      .withColumn("time", lit(Batches.toLong)).withColumn("diff", lit(-1L))
    ShardWriter.write(retractions, updates, WriteOptions(Some("time"), Some("diff")))

    val files = appends.state.parts.map(p => appends.partPath(p).toString).toSeq
    spark.read.parquet(files: _*).createOrReplaceTempView("plain")
    val query = "SELECT count(*), sum(hash(id, k, v)) FROM "
    val reads = Seq(
      ("parquet", files.size, "plain"),
      ("snapshot (fast path)", appends.state.partCount, "persist.appends"),
      ("updates view", appends.state.partCount, "persist.appends.updates"),
      ("snapshot (consolidated)", updates.state.partCount, "persist.updates"))
    val measured = Bench.rounds(Runs) { r =>
      val order = reads.drop(r % reads.size) ++ reads.take(r % reads.size)
      order.map { case (name, _, table) =>
        val df = spark.sql(query + table)
        val (rows, ms, cpuMs) = Bench.timedWithCpuMs(df.collect())
        name -> (rows.head.getLong(0), ms, cpuMs)
      }
    }
    reads.map { case (name, parts, _) =>
      val rs = measured(name)
      Row(name, rs.head._1, parts, median(rs.map(_._2)), median(rs.map(_._3)))
    }
  }

  private def report(rows: Long, results: Seq[Row]): Unit = {
    import Table.Column
    val parquet = results.head.medianMs
    val table = Table(s"Snapshot reads of $rows rows (3 columns) written in $Batches batches, local[2], " +
      s"median of $Runs alternating runs after a warm-up",
      Seq(Column("read", "read"), Column("rows out", "rowsOut"), Column("parts", "parts"), Column("median ms", "medianMs"),
        Column("time / parquet", "timeRatio", 2), Column("CPU ms", "cpuMs")),
      results.map(r => Seq[Any](r.name, r.rowsOut, r.parts, r.medianMs, r.medianMs / parquet, r.cpuMs)))
    table.print()
    BenchOutput.write("snapshot_read.json", "snapshot_read", Seq("rows" -> rows, "runs" -> Runs), table)
  }
}
