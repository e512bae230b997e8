package sparkpersist

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions._

/**
 * A 17-column event table as exported by a typical pipeline: ids, a time, a date, codes and
 * words of low cardinality, numbers and times held as text (what cast stats serve), free text,
 * and one JSON payload held both as JSON text (`payload_js`) and as a VARIANT (`payload`).
 * Row `n` (from 0) is day `n / rowsPerDay` after 2026-01-01, one event every
 * `86400 / rowsPerDay` seconds; every value is a function of `n`, so a test can name the rows a
 * filter keeps. In the payload, `ts` (epoch milliseconds) is a number, but one row in 200 holds
 * it as a numeric string, and `kind` is one of four words.
 */
object EventTable {
  /** 2026-01-01T00:00:00Z in epoch seconds. */
  val Start: Long = 1767225600L

  /** The names of the JSON text columns, to declare as JSON. */
  val JsonColumns: Seq[String] = Seq("payload_js")

  val Countries: Seq[String] = Seq("US", "DE", "FR", "JP", "BR", "IN", "GB", "CA", "MX", "KR")
  val Kinds: Seq[String] = Seq("click", "view", "cart", "buy")

  /** Epoch seconds of row `n`'s event. */
  def eventSeconds(n: Long, rowsPerDay: Int): Long = Start + (n / rowsPerDay) * 86400L + (n % rowsPerDay) * (86400L / rowsPerDay)

  /** The rows `from` until `until`, in `partitions` partitions. */
  def rows(spark: SparkSession, from: Long, until: Long, rowsPerDay: Int, partitions: Int): DataFrame = {
    val n = col("id")
    def pick(words: Seq[String], i: Column): Column = element_at(array(words.map(lit): _*), (i % words.size + 1).cast("int"))
    val seconds = lit(Start) + floor(n / rowsPerDay) * 86400L + (n % rowsPerDay) * (86400L / rowsPerDay)
    val ts = timestamp_seconds(seconds)
    val millis = (seconds * 1000L).cast("string")
    val payload = concat(lit("{\"ts\": "), when(n % 200 === 7, concat(lit("\""), millis, lit("\""))).otherwise(millis),
      lit(", \"kind\": \""), pick(Kinds, n), lit("\", \"n\": "), (n % 1000).cast("string"), lit("}"))
    spark.range(from, until, 1, partitions).select(
      n.as("event_id"),
      ts.as("event_ts"),
      to_date(ts).as("event_date"),
      (n * 7919 % 100000).as("user_id"),
      concat(lit("s-"), substring(sha1(n.cast("string")), 1, 12)).as("session_id"),
      pick(Countries, n / 3).as("country"),
      pick(Seq("ios", "android", "web"), n).as("device"),
      concat(lit("1"), (n % 4).cast("string"), lit("."), (n % 7).cast("string")).as("app_version"),
      ((n % 50000) / 100.0).cast("decimal(12,2)").as("amount"),
      (n % 9 + 1).cast("int").as("quantity"),
      ((n % 20000) / 100.0).cast("decimal(10,2)").cast("string").as("price_text"),
      date_format(ts, "yyyy-MM-dd HH:mm:ss").as("created_text"),
      when(n % 97 === 0, lit("N/A")).otherwise(pick(Seq("200", "201", "301", "404", "500"), n)).as("status_code"),
      (n % 50 === 0).as("is_test"),
      concat(lit("https://example.com/p/"), (n % 300).cast("string"), lit("?ref=mail")).as("referrer"),
      payload.as("payload_js"),
      parse_json(payload).as("payload"))
  }
}
