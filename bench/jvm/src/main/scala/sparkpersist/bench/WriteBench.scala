package sparkpersist.bench

import java.io.File
import java.lang.management.ManagementFactory
import java.nio.file.Files

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions._

import sparkpersist.bench.Bench.median
import sparkpersist.EventTable
import sparkpersist.schema.{JsonColumns, ShardSchema}
import sparkpersist.shard.{ShardHandle, ShardStore}
import sparkpersist.stats.BinaryStatsCodec
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Write throughput with stats: the same cached rows written with plain `df.write.parquet` and
 * with `ShardWriter.write` (parts + stats + commit), same part count, alternating, 3 timed runs
 * each (or as many as the third argument says) after one warm-up, every setting at its default
 * (stats, cast stats, automatic membership filters, JSON and VARIANT stats, the stats budget).
 * Two tables: `rows` rows of 8 typed columns, and `rows / 4` rows of the 17-column
 * [[EventTable]] (numbers and times as text, free text, a JSON payload as declared JSON text and
 * as a VARIANT); each as an append without order key (no sort on either side) and with one (`k`,
 * `user_id`; the plain write gets the same `sortWithinPartitions`).
 *
 * Each run records wall seconds and the process's CPU seconds (Spark runs in local mode, so every
 * task is in this JVM): on a shared machine the CPU figure is the steadier of the two.
 *
 * Usage: bench/runMain sparkpersist.bench.WriteBench [rows] [partitions] [runs]; writes
 * bench/out/write.json.
 */
object WriteBench {
  private var outputs = 0

  final case class Timing(wall: Double, cpu: Double)

  /**
   * @param reserved the plain write of the same rows plus constant `time` and `diff` columns: what
   *                 the part format alone costs, without stats or commit
   */
  final case class Result(scenario: String, plain: Seq[Timing], reserved: Seq[Timing], shard: Seq[Timing],
      parts: Int, statsBytesPerPart: Double, trimmedParts: Int) {
    def plainWall: Double = median(plain.map(_.wall))
    def reservedWall: Double = median(reserved.map(_.wall))
    def shardWall: Double = median(shard.map(_.wall))
    def plainCpu: Double = median(plain.map(_.cpu))
    def reservedCpu: Double = median(reserved.map(_.cpu))
    def shardCpu: Double = median(shard.map(_.cpu))
  }

  def main(args: Array[String]): Unit = {
    val rows = args.headOption.map(_.toLong).getOrElse(2000000L)
    val partitions = args.lift(1).map(_.toInt).getOrElse(8)
    val runs = args.lift(2).map(_.toInt).getOrElse(3)
    val spark = SparkSession.builder().master("local[2]").appName("WriteBench")
      .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    val out = Files.createTempDirectory("writebench").toFile
    try {
      val df = source(spark, rows, partitions).cache()
      df.count()
      val typed = Seq(
        run(spark, df, rows, partitions, runs, out, "8 typed columns, no order key", orderBy = Nil),
        run(spark, df, rows, partitions, runs, out, "8 typed columns, order key k", orderBy = Seq("k")))
      df.unpersist()
      val eventRows = rows / 4
      val events = EventTable.rows(spark, 0, eventRows, (eventRows / 30).toInt.max(1), partitions).cache()
      events.count()
      val eventTable = Seq(
        run(spark, events, eventRows, partitions, runs, out, "17-column events, no order key", orderBy = Nil,
          jsonColumns = EventTable.JsonColumns),
        run(spark, events, eventRows, partitions, runs, out, "17-column events, order key user_id",
          orderBy = Seq("user_id"), jsonColumns = EventTable.JsonColumns))
      events.unpersist()
      report(rows, partitions, runs, typed ++ eventTable)
    } finally {
      deleteRecursively(out)
      spark.stop()
    }
  }

  /** 8 columns: long, int, timestamp, string, double, decimal, boolean, date. */
  private def source(spark: SparkSession, rows: Long, partitions: Int): DataFrame =
    spark.range(0, rows, 1, partitions).select(
      col("id"),
      (hash(col("id")) % 100000).as("k"),
      timestamp_micros(lit(1700000000000000L) + col("id") * 1000L).as("ts"),
      concat(lit("user-"), (col("id") % 50000).cast("string"), lit("-"),
        sha1(col("id").cast("string")).substr(1, 8)).as("s"),
      (rand(7) * 1000.0).as("d"),
      (col("id") % 1000000).cast("decimal(12,2)").as("amount"),
      (col("id") % 3 === 0).as("flag"),
      date_add(lit(java.sql.Date.valueOf("2024-01-01")), (col("id") % 365).cast("int")).as("day"))

  private def run(spark: SparkSession, df: DataFrame, rows: Long, partitions: Int, runs: Int, out: File,
      scenario: String, orderBy: Seq[String], jsonColumns: Seq[String] = Nil): Result = {
    val store = new ShardStore(new File(out, "shards").toURI.toString, spark.sparkContext.hadoopConfiguration)
    val schema = ShardSchema.fromStruct(JsonColumns.declare("bench", df.schema, jsonColumns), orderBy)
    val options = WriteOptions(maxRowsPerPart = Some(rows / partitions + 1))
    def plainOf(rows: DataFrame): Timing = {
      outputs += 1
      val sorted = if (orderBy.isEmpty) rows else rows.sortWithinPartitions(orderBy.map(col): _*)
      time(sorted.write.parquet(new File(out, s"plain-$outputs").toURI.toString))
    }
    def plain(): Timing = plainOf(df)
    def reserved(): Timing = plainOf(df.withColumn("time", lit(System.currentTimeMillis())).withColumn("diff", lit(1L)))
    var lastShard: ShardHandle = null
    def shard(): Timing = {
      outputs += 1
      lastShard = store.create(s"bench_$outputs", schema)
      time(ShardWriter.write(df, lastShard, options))
    }
    plain(); reserved(); shard() // warm-up
    val timings = (1 to runs).map { i =>
      if (i % 2 == 1) { val p = plain(); val r = reserved(); (p, r, shard()) }
      else { val s = shard(); val r = reserved(); (plain(), r, s) }
    }
    val state = lastShard.state
    val codec = BinaryStatsCodec(state.schema)
    val parts = state.parts.toSeq
    val statsBytes = parts.map(p => codec.encode(p.stats.get).length) // as the state stores them, within the budget
    Result(scenario, timings.map(_._1), timings.map(_._2), timings.map(_._3), parts.size,
      statsBytes.sum.toDouble / parts.size, parts.count(_.stats.get.trimmed.nonEmpty))
  }

  private val os = ManagementFactory.getOperatingSystemMXBean.asInstanceOf[com.sun.management.OperatingSystemMXBean]

  private def time(body: => Unit): Timing = {
    val (wall, cpu) = (System.nanoTime(), os.getProcessCpuTime)
    body
    Timing((System.nanoTime() - wall) / 1e9, (os.getProcessCpuTime - cpu) / 1e9)
  }

  private val Target = 1.05

  private def report(rows: Long, partitions: Int, runs: Int, results: Seq[Result]): Unit = {
    import Table.Column
    val table = Table(s"Write with stats (every setting at its default) vs plain df.write.parquet: $rows rows of 8 typed " +
      s"columns, ${rows / 4} rows of the 17-column event table (text, JSON text, VARIANT), $partitions input partitions, " +
      s"same part count, median of $runs alternating runs after a warm-up",
      Seq(Column("scenario", "scenario"), Column("parts", "parts"), Column("plain s", "plainSeconds", 2),
        Column("+t/d s", "plainWithTimeDiffSeconds", 2), Column("shard s", "shardSeconds", 2),
        Column("ratio", "ratio", 3), Column("+t/d ratio", "timeDiffRatio", 3), Column("plain cpu", "plainCpuSeconds", 2),
        Column("+t/d cpu", "plainWithTimeDiffCpuSeconds", 2), Column("shard cpu", "shardCpuSeconds", 2),
        Column("cpu ratio", "cpuRatio", 3), Column("stats B/part", "statsBytesPerPart", 0),
        Column("trimmed parts", "trimmedParts")),
      results.map { r =>
        Seq[Any](r.scenario, r.parts, r.plainWall, r.reservedWall, r.shardWall, r.shardWall / r.plainWall,
          r.reservedWall / r.plainWall, r.plainCpu, r.reservedCpu, r.shardCpu, r.shardCpu / r.plainCpu,
          r.statsBytesPerPart, r.trimmedParts)
      },
      "+t/d: the plain write with constant time and diff columns added (the part format's own cost, no stats, no commit)" +:
        results.map { r =>
          val ratio = r.shardWall / r.plainWall
          f"target (${r.scenario}): shard <= $Target%.2fx plain wall: $ratio%.3fx (${if (ratio <= Target) "met" else "missed"}); " +
            f"of which the time/diff columns alone: ${r.reservedWall / r.plainWall}%.3fx"
        })
    table.print()
    BenchOutput.write("write.json", "write",
      Seq("rows" -> rows, "inputPartitions" -> partitions, "runs" -> runs, "target" -> Target), table)
  }

  private def deleteRecursively(f: File): Unit = {
    Option(f.listFiles()).foreach(_.foreach(deleteRecursively))
    f.delete()
  }
}
