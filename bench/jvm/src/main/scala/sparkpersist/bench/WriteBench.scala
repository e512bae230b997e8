package sparkpersist.bench

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions._

import sparkpersist.shard.{ShardSchema, ShardStore}
import sparkpersist.stats.StatsCodec
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Write throughput with stats: the same cached rows written with plain `df.write.parquet` and
 * with `ShardWriter.write` (parts + stats + commit), same part count, alternating, 3 timed runs
 * each after one warm-up. Two scenarios: an append without order key (no sort on either side),
 * and one with order key `k` (the plain write gets the same `sortWithinPartitions`).
 *
 * Usage: bench/runMain sparkpersist.bench.WriteBench [rows] [partitions]; writes
 * bench/out/write.json.
 */
object WriteBench {
  private val Runs = 3
  private var outputs = 0

  final case class Result(scenario: String, plainSec: Double, shardSec: Double, parts: Int,
      statsBytesPerPart: Double) {
    def ratio: Double = shardSec / plainSec
  }

  def main(args: Array[String]): Unit = {
    val rows = args.headOption.map(_.toLong).getOrElse(2000000L)
    val partitions = args.lift(1).map(_.toInt).getOrElse(8)
    val spark = SparkSession.builder().master("local[2]").appName("WriteBench")
      .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    val out = Files.createTempDirectory("writebench").toFile
    try {
      val df = source(spark, rows, partitions).cache()
      df.count()
      val results = Seq(
        run(spark, df, rows, partitions, out, "append, no order key", orderBy = Nil),
        run(spark, df, rows, partitions, out, "append, order key k", orderBy = Seq("k")))
      report(rows, partitions, results)
    } finally {
      deleteRecursively(out)
      spark.stop()
    }
  }

  /** ~8 columns: long, int, timestamp, string, double, decimal, boolean, date. */
  private def source(spark: SparkSession, rows: Long, partitions: Int): DataFrame =
    spark.range(0, rows, 1, partitions).select(
      col("id"),
      (hash(col("id")) % 100000).as("k"),
      (lit(1700000000000000L) + col("id") * 1000L).cast("long").as("ts_us"),
      concat(lit("user-"), (col("id") % 50000).cast("string"), lit("-"), sha1(col("id").cast("string")).substr(1, 8)).as("s"),
      (rand(7) * 1000.0).as("d"),
      (col("id") % 1000000).cast("decimal(12,2)").as("amount"),
      (col("id") % 3 === 0).as("flag"),
      date_add(lit(java.sql.Date.valueOf("2024-01-01")), (col("id") % 365).cast("int")).as("day"))
      .withColumn("ts", timestamp_micros(col("ts_us"))).drop("ts_us")

  private def run(spark: SparkSession, df: DataFrame, rows: Long, partitions: Int, out: File,
      scenario: String, orderBy: Seq[String]): Result = {
    val store = new ShardStore(new File(out, "shards").toURI.toString, spark.sparkContext.hadoopConfiguration)
    val schema = ShardSchema.fromStruct(df.schema, orderBy)
    val options = WriteOptions(maxRowsPerPart = Some(rows / partitions + 1))
    def plain(): Double = time {
      outputs += 1
      val sorted = if (orderBy.isEmpty) df else df.sortWithinPartitions(orderBy.map(col): _*)
      sorted.write.parquet(new File(out, s"plain-$outputs").toURI.toString)
    }
    var lastShard: sparkpersist.shard.ShardHandle = null
    def shard(): Double = {
      outputs += 1
      val handle = store.create(s"bench_$outputs", schema)
      lastShard = handle
      time(ShardWriter.write(df, handle, options))
    }
    plain(); shard() // warm-up
    val timings = (1 to Runs).map(i => if (i % 2 == 1) { val p = plain(); (p, shard()) } else { val s = shard(); (plain(), s) })
    val state = lastShard.state
    val codec = StatsCodec(state.schema)
    val parts = state.parts.toSeq
    val statsBytes = parts.map(p => codec.encode(p.stats.get).getBytes(StandardCharsets.UTF_8).length)
    Result(scenario, median(timings.map(_._1)), median(timings.map(_._2)), parts.size,
      statsBytes.sum.toDouble / parts.size)
  }

  private def time(body: => Unit): Double = {
    val start = System.nanoTime()
    body
    (System.nanoTime() - start) / 1e9
  }

  private def median(xs: Seq[Double]): Double = xs.sorted.apply(xs.size / 2)

  private def report(rows: Long, partitions: Int, results: Seq[Result]): Unit = {
    println(f"WriteBench: $rows%d rows, $partitions%d input partitions, median of $Runs%d alternating runs")
    println(f"${"scenario"}%-24s ${"plain s"}%9s ${"shard s"}%9s ${"plain rows/s"}%13s ${"shard rows/s"}%13s ${"ratio"}%7s ${"parts"}%6s ${"stats B/part"}%13s")
    results.foreach { r =>
      println(f"${r.scenario}%-24s ${r.plainSec}%9.2f ${r.shardSec}%9.2f ${rows / r.plainSec}%13.0f " +
        f"${rows / r.shardSec}%13.0f ${r.ratio}%7.3f ${r.parts}%6d ${r.statsBytesPerPart}%13.0f")
    }
    val json = results.map { r =>
      s"""{"scenario": "${r.scenario}", "rows": $rows, "parts": ${r.parts}, "plain_seconds": ${r.plainSec}, """ +
        s""""shard_seconds": ${r.shardSec}, "plain_rows_per_sec": ${rows / r.plainSec}, """ +
        s""""shard_rows_per_sec": ${rows / r.shardSec}, "ratio": ${r.ratio}, "stats_bytes_per_part": ${r.statsBytesPerPart}}"""
    }.mkString("{\"benchmark\": \"write\", \"runs\": " + Runs + ", \"results\": [\n  ", ",\n  ", "\n]}\n")
    val path = Paths.get("bench", "out", "write.json")
    Files.createDirectories(path.getParent)
    Files.write(path, json.getBytes(StandardCharsets.UTF_8))
    println(s"wrote $path")
  }

  private def deleteRecursively(f: File): Unit = {
    Option(f.listFiles()).foreach(_.foreach(deleteRecursively))
    f.delete()
  }
}
