package sparkpersist.bench

import java.nio.charset.StandardCharsets
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions._

import sparkpersist.PersistConf
import sparkpersist.bench.Bench.median
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.ShardStore
import sparkpersist.stats.StatsCodec
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * What cast stats (`spark.sparkpersist.stats.castStats`) cost at write: the same cached text-heavy
 * rows (a numeric code as text with some "N/A", a timestamp as text, an amount as text, a free-text
 * note that never parses, and a long id) written with and without them, alternating, `runs` timed
 * rounds after a warm-up, without a stats budget (so the sizes are the stats' own). Reports write
 * wall and process CPU seconds and encoded stats bytes per part, with the ratios.
 *
 * Usage: bench/runMain sparkpersist.bench.CastStatsBench [rows] [partitions] [runs]; writes
 * bench/out/cast_stats.json.
 */
object CastStatsBench {

  def main(args: Array[String]): Unit = {
    val rows = Bench.arg(args, 0, 1000000L)(_.toLong)
    val partitions = Bench.arg(args, 1, 8)(_.toInt)
    val runs = Bench.arg(args, 2, 3)(_.toInt)
    val spark = SparkSession.builder().master("local[2]").appName("CastStatsBench")
      .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    val root = Files.createTempDirectory("caststatsbench").toFile
    try {
      val store = new ShardStore(root.toURI.toString, spark.sparkContext.hadoopConfiguration)
      val df = text(spark, rows, partitions).cache()
      df.count()
      val schema = ShardSchema.fromStruct(df.schema)
      val codec = StatsCodec(schema)
      spark.conf.set(PersistConf.StatsBudgetBytes.key, "0")
      var shards = 0
      val results = Bench.rounds(runs) { _ =>
        Seq(false, true).map { on =>
          spark.conf.set(PersistConf.CastStats.key, on.toString)
          shards += 1
          val shard = store.create(s"s$shards", schema)
          val (cpu0, start) = (Bench.processCpuMs(), System.nanoTime())
          val parts = ShardWriter.write(df, shard, WriteOptions()).parts.toSeq
          val (wall, cpu) = ((System.nanoTime() - start) / 1e9, (Bench.processCpuMs() - cpu0) / 1e3)
          val bytes = parts.map(p => codec.encode(p.stats.get).getBytes(StandardCharsets.UTF_8).length)
          on -> (wall, cpu, bytes.sum.toDouble / bytes.size)
        }
      }
      def row(on: Boolean): Seq[Double] = {
        val rs = results(on)
        Seq(median(rs.map(_._1)), median(rs.map(_._2)), median(rs.map(_._3)))
      }
      val (off, on) = (row(false), row(true))
      val table = Table(
        s"Write with vs without cast stats: $rows rows, $partitions parts, 5 columns (3 parse), no budget, " +
          s"median of $runs alternating runs after a warm-up",
        Seq(Table.Column("cast stats", "castStats"), Table.Column("wall s", "wallSeconds", 2),
          Table.Column("cpu s", "cpuSeconds", 2), Table.Column("stats B/part", "statsBytesPerPart", 0)),
        Seq(Seq("off", off(0), off(1), off(2)), Seq("on", on(0), on(1), on(2))),
        notes = Seq(f"ratio on/off: wall ${on(0) / off(0)}%.3f, cpu ${on(1) / off(1)}%.3f, stats bytes ${on(2) / off(2)}%.2f"))
      table.print()
      BenchOutput.write("cast_stats.json", "cast_stats",
        Seq("rows" -> rows, "partitions" -> partitions, "runs" -> runs,
          "wallRatio" -> on(0) / off(0), "cpuRatio" -> on(1) / off(1), "statsBytesRatio" -> on(2) / off(2)),
        table)
    } finally {
      FileUtils.deleteDirectory(root)
      spark.stop()
    }
  }

  /** Rows of text: a code ("N/A" one row in 500), a timestamp, an amount, a note, and an id. */
  private def text(spark: SparkSession, rows: Long, partitions: Int): DataFrame = {
    val n = col("id")
    spark.range(0, rows, 1, partitions).select(
      n.as("id"),
      when(n % 500 === 0, lit("N/A")).otherwise((n % 600).cast("string")).as("code_str"),
      date_format(timestamp_micros(lit(1767225600000000L) + n * 1000000L), "yyyy-MM-dd HH:mm:ss").as("ts_str"),
      (n % 100000 / 100.0).cast("decimal(12,2)").cast("string").as("amount_str"),
      concat(lit("order "), sha1(n.cast("string")).substr(1, 12), lit(" shipped")).as("note"))
  }
}
