package sparkpersist.bench

import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions._

import sparkpersist.PersistConf
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{PartMeta, ShardStore}
import sparkpersist.stats.{PartStats, StatsBudget}
import sparkpersist.stats.legacy.LegacyStatsJson
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Size of part statistics on a realistic shard, with and without the stats budget: the same
 * events (ids, an event timestamp, user names, countries, long URLs and user agents, amounts, a
 * device struct, tags and a JSON payload as text) written twice, once with
 * `spark.sparkpersist.stats.budgetBytes = 0` and once with the default budget. Reports the
 * encoded stats bytes per part (p50, p99, max) in the binary encoding the state stores, and in
 * the JSON encoding of the release before for the unbudgeted stats, the fraction of parts trimmed, which columns were
 * trimmed, and the time the budget takes per part (on the budgeted stats, which fit, and on the
 * unbudgeted ones).
 *
 * Usage: bench/runMain sparkpersist.bench.StatsSizeBench [parts] [rowsPerPart]; writes
 * bench/out/stats_size.json.
 */
object StatsSizeBench {

  def main(args: Array[String]): Unit = {
    val parts = args.headOption.map(_.toInt).getOrElse(500)
    val rowsPerPart = args.lift(1).map(_.toInt).getOrElse(200)
    val spark = SparkSession.builder().master("local[2]").appName("StatsSizeBench")
      .config("spark.ui.enabled", "false").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    val root = Files.createTempDirectory("statssizebench").toFile
    try {
      val store = new ShardStore(root.toURI.toString, spark.sparkContext.hadoopConfiguration)
      val df = events(spark, parts, rowsPerPart)
      val schema = ShardSchema.fromStruct(df.schema, Seq("event_id"))
      val default = PersistConf.StatsBudgetBytes.default
      def written(name: String, budget: Long): Seq[PartMeta] = {
        spark.conf.set(PersistConf.StatsBudgetBytes.key, budget.toString)
        ShardWriter.write(df, store.create(name, schema), WriteOptions(maxRowsPerPart = Some(rowsPerPart.toLong)))
          .parts.toSeq
      }
      val full = written("unbudgeted", 0).map(_.stats.get)
      val budgeted = written("budgeted", default).map(_.stats.get)
      val budget = new StatsBudget(schema, Set.empty, default)
      report(parts, rowsPerPart, schema, budget, full, budgeted, (micros(budget, budgeted), micros(budget, full)))
    } finally {
      spark.conf.unset(PersistConf.StatsBudgetBytes.key)
      FileUtils.deleteDirectory(root)
      spark.stop()
    }
  }

  /** One part per input partition: event times advance by part, as appends of a live table do. */
  private def events(spark: SparkSession, parts: Int, rowsPerPart: Int): DataFrame = {
    val n = col("id")
    val h = abs(hash(n))
    spark.range(0, parts.toLong * rowsPerPart, 1, parts).select(
      n.as("event_id"),
      timestamp_micros(lit(1767225600000000L) + n * 1000000L).as("event_ts"),
      concat(lit("user-"), (h % 50000).cast("string"), lit("-"), sha1(n.cast("string")).substr(1, 8)).as("user_name"),
      element_at(array(Seq("US", "DE", "FR", "BR", "IN", "JP").map(lit): _*), (h % 6 + 1).cast("int")).as("country"),
      concat(lit("https://shop.example.com/catalog/"), (h % 300).cast("string"), lit("/item/"),
        sha2(n.cast("string"), 256), lit("?ref=campaign-"), (h % 17).cast("string")).as("url"),
      concat(lit("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/"),
        (h % 40 + 100).cast("string"), lit(".0.0.0 Safari/537.36")).as("user_agent"),
      (h % 1000000 / 100.0).cast("decimal(12,2)").as("amount"),
      struct(lit("linux").as("os"), (h % 9).cast("string").as("version"),
        concat(lit("model-"), (h % 40).cast("string")).as("model")).as("device"),
      array(lit("web"), concat(lit("ab-"), (h % 4).cast("string"))).as("tags"),
      to_json(struct(
        sha1(n.cast("string")).as("session"),
        (h % 1000).as("items"),
        struct((h % 2 === 0).as("vip"), concat(lit("seg-"), (h % 12).cast("string")).as("segment"),
          (h % 100 / 3.0).as("score")).as("props"),
        array((h % 5).cast("string"), (h % 7).cast("string")).as("path"))).as("payload"))
  }

  /** Median microseconds the budget takes on one part's stats, over 20 rounds of every part. */
  private def micros(budget: StatsBudget, stats: Seq[PartStats]): Double = {
    val rounds = (1 to 20).map { _ =>
      val start = System.nanoTime()
      stats.foreach(budget(_))
      (System.nanoTime() - start) / 1e3 / stats.size
    }
    rounds.sorted.apply(rounds.size / 2)
  }

  private def report(parts: Int, rowsPerPart: Int, schema: ShardSchema, budget: StatsBudget,
      full: Seq[PartStats], budgeted: Seq[PartStats], micros: (Double, Double)): Unit = {
    val json = LegacyStatsJson(schema)
    def sizes(stats: Seq[PartStats]) = stats.map(budget.encodedSize).sorted
    def jsonSizes(stats: Seq[PartStats]) = stats.map(json.encode(_).getBytes("UTF-8").length.toLong).sorted
    def pct(xs: Seq[Long], p: Double) = xs(math.min(xs.size - 1, math.ceil(p * xs.size).toInt - 1))
    val trimmedParts = budgeted.count(_.trimmed.nonEmpty)
    val byColumn = schema.columns.map(c => c.name -> budgeted.count(_.trimmed(c.id))).filter(_._2 > 0)
    val rows = Seq(("no budget", full, sizes _), ("budgeted", budgeted, sizes _),
        ("no budget, JSON", full, jsonSizes _)).map { case (label, stats, measure) =>
      val s = measure(stats)
      Seq(label, pct(s, 0.5), pct(s, 0.99), s.last, s.sum.toDouble / s.size,
        stats.count(_.trimmed.nonEmpty) * 100.0 / stats.size)
    }
    val table = Table(
      s"Encoded stats per part: $parts parts x $rowsPerPart rows, ${schema.columns.size} columns, " +
        s"budget ${budget.budgetBytes} bytes",
      Seq(Table.Column("stats", "stats"), Table.Column("p50 B", "p50Bytes"), Table.Column("p99 B", "p99Bytes"),
        Table.Column("max B", "maxBytes"), Table.Column("mean B", "meanBytes"),
        Table.Column("parts trimmed %", "trimmedPercent")),
      rows,
      notes = Seq(
        s"binary stats (as stored) vs the JSON encoding of the release before, the same unbudgeted stats: " +
          f"mean ${jsonSizes(full).sum.toDouble / sizes(full).sum}%.2fx smaller",
        s"target: untrimmed stats <= ${budget.budgetBytes} B per part: max ${sizes(full).last} B " +
          s"(${if (sizes(full).last <= budget.budgetBytes) "met" else "missed"})",
        s"columns trimmed (parts): ${byColumn.map { case (n, k) => s"$n $k" }.mkString(", ")}",
        f"budget time per part: ${micros._1}%.1f us on stats that fit (the budgeted ones), " +
          f"${micros._2}%.1f us on the unbudgeted ones"))
    table.print()
    BenchOutput.write("stats_size.json", "stats_size",
      Seq("parts" -> parts, "rowsPerPart" -> rowsPerPart, "budgetBytes" -> budget.budgetBytes,
        "trimmedParts" -> trimmedParts, "budgetMicrosWhenFits" -> micros._1, "budgetMicrosWhenTrimmed" -> micros._2),
      table)
  }
}
