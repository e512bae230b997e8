package sparkpersist.bench

import java.nio.charset.StandardCharsets
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{DataType, VariantType}

import sparkpersist.PersistConf
import sparkpersist.bench.Bench.median
import sparkpersist.schema.{JsonColumns, ShardSchema}
import sparkpersist.shard.ShardStore
import sparkpersist.stats.{CastTrimming, StatsCollector, VariantParse}
import sparkpersist.stats.legacy.LegacyStatsJson
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * What cast stats (`spark.sparkpersist.stats.castStats`) cost at write, on two shapes of cached
 * rows, each written with plain `df.write.parquet` and as a shard with and without them (on is
 * the default), alternating, `runs` timed rounds after a warm-up, without a stats budget (so the
 * sizes are the stats' own):
 *
 *  - text columns: a numeric code as text with some "N/A", a timestamp as text, an amount as
 *    text, a free-text note that never parses, and a long id;
 *  - JSON documents, as a VARIANT and as JSON text: `{"ts": <epoch millis>, "kind": <word>}`,
 *    where 0.5% of the `ts` are numeric strings (the cast stats of JSON places' strings).
 *
 * Reports write wall and process CPU seconds and encoded stats bytes per part, with the ratios
 * (target: the shard at the defaults within 1.05x the plain Parquet write's wall time), then the
 * string stats collector alone on each text column, in nanoseconds per value.
 *
 * Usage: bench/runMain sparkpersist.bench.CastStatsBench [rows] [partitions] [runs]; writes
 * bench/out/cast_stats.json.
 */
object CastStatsBench {

  /** One shape of rows: its name, the rows, and the string columns declared JSON. */
  private final case class Shape(name: String, rows: DataFrame, jsonColumns: Seq[String])

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
      spark.conf.set(PersistConf.StatsBudgetBytes.key, "0")
      var shards = 0
      val shapes = Seq(Shape("text columns", text(spark, rows, partitions), Nil),
        Shape("JSON + VARIANT", documents(spark, rows, partitions), Seq("js")))
      val measured = shapes.map { shape =>
        val df = shape.rows.cache()
        df.count()
        val schema = ShardSchema.fromStruct(JsonColumns.declare("bench", df.schema, shape.jsonColumns))
        val codec = LegacyStatsJson(schema)
        val results = Bench.rounds(runs) { _ =>
          Seq("plain", "off", "on").map { setting =>
            shards += 1
            val (cpu0, start) = (Bench.processCpuMs(), System.nanoTime())
            val bytes = if (setting == "plain") {
              df.write.parquet(new java.io.File(root, s"plain$shards").toURI.toString)
              Seq(0)
            } else {
              spark.conf.set(PersistConf.CastStats.key, (setting == "on").toString)
              val parts = ShardWriter.write(df, store.create(s"s$shards", schema), WriteOptions()).parts.toSeq
              parts.map(p => codec.encode(p.stats.get).getBytes(StandardCharsets.UTF_8).length)
            }
            val (wall, cpu) = ((System.nanoTime() - start) / 1e9, (Bench.processCpuMs() - cpu0) / 1e3)
            setting -> (wall, cpu, bytes.sum.toDouble / bytes.size)
          }
        }
        spark.conf.unset(PersistConf.CastStats.key)
        df.unpersist()
        def row(setting: String): Seq[Double] = {
          val rs = results(setting)
          Seq(median(rs.map(_._1)), median(rs.map(_._2)), median(rs.map(_._3)))
        }
        (shape.name, row("plain"), row("off"), row("on"))
      }
      val table = Table(
        s"Write with and without cast stats, and plain Parquet: $rows rows, $partitions parts, no budget, " +
          s"median of $runs alternating runs after a warm-up",
        Seq(Table.Column("rows", "shape"), Table.Column("write", "castStats"), Table.Column("wall s", "wallSeconds", 2),
          Table.Column("cpu s", "cpuSeconds", 2), Table.Column("stats B/part", "statsBytesPerPart", 0)),
        measured.flatMap { case (name, plain, off, on) =>
          Seq(Seq(name, "plain df.write.parquet", plain(0), plain(1), 0), Seq(name, "shard, cast stats off", off(0), off(1), off(2)),
            Seq(name, "shard, cast stats on (default)", on(0), on(1), on(2)))
        },
        notes = measured.flatMap { case (name, plain, off, on) =>
          val vsPlain = on(0) / plain(0)
          Seq(f"$name: ratio on/off: wall ${on(0) / off(0)}%.3f, cpu ${on(1) / off(1)}%.3f, stats bytes ${on(2) / off(2)}%.2f",
            f"$name: target shard at the defaults <= 1.05x plain parquet wall: $vsPlain%.3fx " +
              f"(${if (vsPlain <= 1.05) "met" else "missed"}); cpu ${on(1) / plain(1)}%.3fx")
        })
      table.print()
      val alone = collectorAlone(spark, rows, partitions, runs)
      alone.print()
      def ratios(prefix: String, plain: Seq[Double], off: Seq[Double], on: Seq[Double]): Seq[(String, Any)] =
        Seq(s"${prefix}wallRatio" -> on(0) / off(0), s"${prefix}cpuRatio" -> on(1) / off(1),
          s"${prefix}statsBytesRatio" -> on(2) / off(2), s"${prefix}wallVsPlainParquet" -> on(0) / plain(0))
      val Seq((_, textPlain, textOff, textOn), (_, jsonPlain, jsonOff, jsonOn)) = measured
      BenchOutput.write("cast_stats.json", "cast_stats",
        Seq("rows" -> rows, "partitions" -> partitions, "runs" -> runs) ++ ratios("", textPlain, textOff, textOn) ++
          ratios("json", jsonPlain, jsonOff, jsonOn),
        table, alone)
    } finally {
      FileUtils.deleteDirectory(root)
      spark.stop()
    }
  }

  /**
   * The stats collector alone on each column of both shapes but the id (values held in memory as
   * Spark hands them to the writer, JSON text declared so, string bounds left to the Parquet footer
   * as the writer leaves them): nanoseconds per value with and without
   * cast stats, median of `runs` after a warm-up; for the JSON text column, also Spark's
   * `parse_json` alone (the [[VariantParse]] count the collector keeps).
   */
  private def collectorAlone(spark: SparkSession, rows: Long, partitions: Int, runs: Int): Table = {
    val shapes = Seq(text(spark, rows, partitions) -> Set.empty[String], documents(spark, rows, partitions) -> Set("js"))
    def nsPerValue(values: Array[InternalRow])(add: InternalRow => Unit): Double = median((0 to runs).map { _ =>
      val start = System.nanoTime()
      values.foreach(add)
      (System.nanoTime() - start).toDouble / values.length
    }.tail)
    def collector(dt: DataType, json: Boolean, zone: Option[String]) = StatsCollector.forColumn(dt, json, 64, zone, boundsFromFile = true)
    Table(s"The stats collector alone, ns per value ($rows values per column, median of $runs after a warm-up)",
      Seq(Table.Column("column", "column"), Table.Column("plain ns", "plainNs", 1),
        Table.Column("with casts ns", "castsNs", 1), Table.Column("cast stats", "castStats")),
      shapes.flatMap { case (df, json) =>
        df.drop("id").schema.fields.toSeq.map { field =>
          val values = df.select(field.name).queryExecution.toRdd.map(_.copy()).collect()
          val isJson = json(field.name)
          def timed(zone: Option[String]): Double = {
            val c = collector(field.dataType, isJson, zone)
            nsPerValue(values)(c.update(_, 0))
          }
          val (plain, withCasts) = (timed(None), timed(Some("UTC")))
          val c = collector(field.dataType, isJson, Some("UTC"))
          values.foreach(c.update(_, 0))
          val result = c.result()
          val kept = CastTrimming.has(result)
          val kind = if (isJson) " (JSON text)" else if (field.dataType == VariantType) " (VARIANT)" else ""
          val parseJson = if (!isJson) Nil else Seq(Seq[Any](s"${field.name}: parse_json alone",
            nsPerValue(values)(r => VariantParse.parses(r.getUTF8String(0))), "", ""))
          Seq[Any](field.name + kind, plain, withCasts, if (kept) "kept" else "none") +: parseJson
        }.flatten
      })
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

  /**
   * JSON documents `{"ts": ..., "kind": ...}` as a VARIANT `payload` and as JSON text `js`: `ts`
   * is a number, or one row in 200 the same number as a string; `kind` is one of a few words.
   */
  private def documents(spark: SparkSession, rows: Long, partitions: Int): DataFrame = {
    val n = col("id")
    val ts = (lit(1772000000000L) + n).cast("string")
    val js = concat(lit("{\"ts\": "), when(n % 200 === 7, concat(lit("\""), ts, lit("\""))).otherwise(ts),
      lit(", \"kind\": \""), element_at(array(lit("click"), lit("view"), lit("buy")), (n % 3 + 1).cast("int")), lit("\"}"))
    spark.range(0, rows, 1, partitions).select(n.as("id"), js.as("js"))
      .select(col("id"), parse_json(col("js")).as("payload"), col("js"))
  }
}
