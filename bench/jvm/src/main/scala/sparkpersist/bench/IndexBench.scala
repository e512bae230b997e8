package sparkpersist.bench

import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, concat, lit, timestamp_millis}

import sparkpersist.PersistConf
import sparkpersist.bench.Bench.{arg, median, timedMs}
import sparkpersist.catalog.SessionShards
import sparkpersist.scan.ScanReports
import sparkpersist.stats.BinaryStatsCodec
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Beyond min/max: point lookups on high-cardinality columns and piecewise monotone functions.
 * Three shards of the same `parts` parts (`rowsPerPart` rows each, consecutive slices of a two-day
 * window of `ts`; `user_id`, `session_id` and `account` interleaved so that every part's min/max
 * spans nearly all of them; `account` has 100 values per part): `plain` without membership filters
 * (automatic ones turned off), `indexed` with `user_id` and `session_id` named in `index_columns`
 * (stats budget raised so that their Bloom filters fit), `auto` written with the default settings
 * (default budget, automatic filters). Queries:
 *  - `user_id IN (3 ids)` and `session_id = '...'`: before = `plain` with pruning on (min/max
 *    only), after = `indexed` with pruning on;
 *  - `account IN (3 ids)`: before = `plain`, after = `auto`, pruning on;
 *  - `hour(ts) = 3` and `date_format(ts, 'yyyy-MM-dd HH') >= '...'`: before = pruning off (what the
 *    interpreter did before piecewise reasoning: these functions were unknown, so every part was
 *    read), after = pruning on.
 * For each: parts read and the median wall time over `runs` alternating rounds; and the encoded
 * stats bytes per part of each shard, and the write time of `auto` against `plain` (the cost of
 * collecting automatic filters).
 *
 * `bench/runMain sparkpersist.bench.IndexBench [parts=48] [rowsPerPart=20000] [runs=5]`;
 * prints a table and writes bench/out/index.json.
 */
object IndexBench {

  private val Start = 1767225600000L // 2026-01-01T00:00:00Z
  private val WindowMs = 2 * 86400000L

  final case class Run(rows: Long, partsRead: Long, wallMs: Double)

  def main(args: Array[String]): Unit = {
    val parts = arg(args, 0, 48)(_.toInt)
    val rowsPerPart = arg(args, 1, 20000L)(_.toLong)
    val runs = arg(args, 2, 5)(_.toInt)
    val root = Files.createTempDirectory("index-bench").toFile
    val spark = Bench.persistSession("IndexBench", root, conf = Map("spark.sql.adaptive.enabled" -> "false"))
    try {
      val store = SessionShards.store(spark)
      // `indexed` first: it warms the write path, so that `plain` and `auto` are timed alike.
      val shards = Seq(
        ("indexed", Seq("user_id", "session_id"), Map(PersistConf.StatsBudgetBytes.key -> (1L << 20).toString)),
        ("plain", Nil, Map(PersistConf.AutoIndexValues.key -> "0")),
        ("auto", Nil, Map.empty[String, String]))
      val writeMs = shards.map { case (name, indexed, conf) =>
        spark.sql(s"CREATE TABLE persist.$name (ts TIMESTAMP, user_id BIGINT, session_id STRING, account BIGINT)")
        val shard = store.open(name)
        conf.foreach { case (k, v) => spark.conf.set(k, v) }
        val (_, ms) = timedMs((0 until parts).foreach { p =>
          ShardWriter.write(slice(spark, p, parts, rowsPerPart), shard,
            WriteOptions(timeCol = Some("ingest_ms"), indexColumns = indexed))
        })
        conf.keys.foreach(spark.conf.unset)
        name -> ms
      }.toMap
      val probe = rowsPerPart / 2 * parts + 5
      val lookups = Seq(
        s"user_id IN (${Seq(probe, probe + 7 * parts + 1, rowsPerPart * parts + 99).mkString(", ")})",
        s"session_id = 's-${(probe + 3) * 7919}'")
      val accounts = s"account IN (${Seq(5 * parts + 3, 77 * parts + 1, 1000 * parts).mkString(", ")})"
      val windows = Seq("hour(ts) = 3", "date_format(ts, 'yyyy-MM-dd HH') >= '2026-01-02 18'")
      val cases: Seq[(String, (String, String), (String, String))] =
        lookups.map(q => (q, ("plain", "on"), ("indexed", "on"))) ++
          Seq((accounts, ("plain", "on"), ("auto", "on"))) ++
          windows.map(q => (q, ("indexed", "off"), ("indexed", "on")))
      val measured = Bench.rounds(runs) { r =>
        for ((q, before, after) <- cases; (side, (table, mode)) <- if (r % 2 == 0) Seq("before" -> before, "after" -> after)
          else Seq("after" -> after, "before" -> before)) yield (q, side) -> run(spark, table, mode, q)
      }
      val rows = cases.map { case (q, _, _) =>
        val Seq(before, after) = Seq("before", "after").map(s => measured((q, s)))
        require(before.map(_.rows).distinct == after.map(_.rows).distinct, s"$q: before and after disagree")
        (q, before.head.partsRead, after.head.partsRead, median(before.map(_.wallMs)), median(after.map(_.wallMs)))
      }
      report(parts, rowsPerPart, runs, rows, Seq("plain", "indexed", "auto").map(n => n -> statsBytes(store.open(n))).toMap,
        writeMs("auto") / writeMs("plain"))
    } finally {
      spark.stop()
      FileUtils.deleteDirectory(root)
    }
  }

  /**
   * Part p of n: ts in its slice of the window, user_id = p + n * i, session_id = 's-' || user_id * 7919,
   * account = p + n * (i % 100).
   */
  private def slice(spark: SparkSession, p: Int, n: Int, rows: Long): DataFrame = {
    val sliceMs = WindowMs / n
    spark.range(0, rows, 1, 1).select(
      timestamp_millis(lit(Start + p * sliceMs) + (col("id") * sliceMs / rows).cast("long")).as("ts"),
      (col("id") * n + p).as("user_id"),
      concat(lit("s-"), ((col("id") * n + p) * 7919).cast("string")).as("session_id"),
      (col("id") % 100 * n + p).as("account"),
      lit(Start + (p + 1) * sliceMs).as("ingest_ms"))
  }

  private def run(spark: SparkSession, table: String, mode: String, condition: String): Run = {
    spark.conf.set(PersistConf.PushdownMode.key, mode)
    val (rows, ms) = timedMs(spark.sql(s"SELECT count(*) FROM persist.$table WHERE $condition").collect())
    Run(rows.head.getLong(0), ScanReports.last(spark).map(_.metrics.partsKept).sum, ms)
  }

  /** Mean encoded stats bytes per part, as the state stores them. */
  private def statsBytes(shard: sparkpersist.shard.ShardHandle): Double = {
    val state = shard.state
    val codec = BinaryStatsCodec(state.schema)
    val sizes = state.parts.toSeq.flatMap(_.stats).map(s => codec.encode(s).length.toDouble)
    sizes.sum / sizes.size
  }

  private def report(parts: Int, rowsPerPart: Long, runs: Int, rows: Seq[(String, Long, Long, Double, Double)],
      statsBytes: Map[String, Double], autoWriteRatio: Double): Unit = {
    import Table.Column
    val table = Table(s"Beyond min/max: $parts parts of $rowsPerPart rows over two days, local[2], " +
      s"median of $runs alternating runs after a warm-up",
      Seq(Column("filter", "filter"), Column("parts before", "partsBefore"), Column("parts after", "partsAfter"),
        Column("ms before", "msBefore"), Column("ms after", "msAfter"), Column("time after / before", "timeRatio", 2)),
      rows.map { case (q, pb, pa, mb, ma) => Seq[Any](q, pb, pa, mb, ma, ma / mb) },
      Seq("before: lookups on the shard without membership filters (min/max only), pruning on; " +
        "hour()/date_format() with pruning off (the interpreter knew neither function before)",
        f"stats bytes per part: ${statsBytes("plain")}%.0f without filters, ${statsBytes("indexed")}%.0f with " +
          f"user_id and session_id indexed, ${statsBytes("auto")}%.0f with automatic filters (default budget)",
        f"write time with automatic filters / without: $autoWriteRatio%.2f"))
    table.print()
    BenchOutput.write("index.json", "index", Seq("parts" -> parts, "rowsPerPart" -> rowsPerPart, "runs" -> runs,
      "statsBytesPlain" -> statsBytes("plain"), "statsBytesIndexed" -> statsBytes("indexed"),
      "statsBytesAuto" -> statsBytes("auto"), "autoWriteRatio" -> autoWriteRatio), table)
  }
}
