package sparkpersist.catalyst

import org.apache.spark.sql.functions.{col, date_format, lit, timestamp_millis, when}
import org.apache.spark.sql.internal.SQLConf

import sparkpersist.scan.ScanReports
import sparkpersist.write.{ShardWriter, WriteOptions}
import sparkpersist.{PersistConf, PersistSparkSession}

/**
 * Casts of text prune end to end (issue 18's shape): ten daily parts whose `code_str` holds the
 * codes "0" to "19" as text, except that days 4 and 7 also hold "N/A", and whose `ts_str` holds
 * `event_ts` as text, written in UTC.
 */
class CastAwarePruningSuite extends PersistSparkSession {

  private val Start = 1767225600000L // 2026-01-01T00:00:00Z
  private val Day = 86400000L
  private val Days = 10
  private val NotAvailable = Set(4, 7)

  override def beforeAll(): Unit = {
    super.beforeAll()
    sql("CREATE TABLE persist.codes (event_ts TIMESTAMP, code_str STRING, ts_str STRING, n BIGINT)")
    val shard = store.open("codes")
    (0 until Days).foreach { d =>
      val code = col("id").cast("string")
      val day = spark.range(20).select(
        timestamp_millis(lit(Start + d * Day) + col("id") * 3600000L).as("event_ts"),
        (if (NotAvailable(d)) when(col("id") === 0, lit("N/A")).otherwise(code) else code).as("code_str"),
        (col("id") + d * 100L).as("n"),
        lit(Start + (d + 1) * Day - 1).as("ingest_ms")).coalesce(1)
        .withColumn("ts_str", date_format(col("event_ts"), "yyyy-MM-dd HH:mm:ss"))
        .select("event_ts", "code_str", "ts_str", "n", "ingest_ms")
      withSQLConf(PersistConf.CastStats.key -> "true") {
        ShardWriter.write(day, shard, WriteOptions(timeCol = Some("ingest_ms")))
      }
    }
    assert(shard.state.partCount === Days)
    assert(shard.state.parts.forall(_.stats.get.columns.values.count(_.casts.isDefined) == 2))
  }

  /** Asserts `query` reads `kept` parts with pushdown on, every part otherwise, and returns `rows` rows. */
  private def assertReads(query: String, kept: Int, rows: Int): Unit = {
    val (result, reports) = inEveryMode(query)
    assert(result.size === rows, query)
    assert(reports("on").map(_.metrics.partsKept) === Seq(kept), query)
    assert(reports("soft").map(_.metrics.partsPruned) === Seq(Days - kept), query)
    assert(reports("off").map(_.metrics.partsKept) === Seq(Days), query)
  }

  private val ThirdDay = "TIMESTAMP '2026-01-03 00:00:00'"

  test("legacy mode: the N/A parts cast to NULL and prune like the others") {
    withSQLConf(SQLConf.ANSI_ENABLED.key -> "false") {
      assertReads(s"SELECT n FROM persist.codes WHERE CAST(code_str AS INT) > 5 AND event_ts < $ThirdDay", kept = 2, rows = 28)
      assertReads("SELECT n FROM persist.codes WHERE CAST(code_str AS INT) > 100", kept = 0, rows = 0)
      assertReads("SELECT n FROM persist.codes WHERE CAST(code_str AS DECIMAL(4,1)) >= 19.5", kept = 0, rows = 0)
    }
  }

  test("ANSI: the event_ts parts plus the N/A parts are read, and the query raises as it does unpruned") {
    /** Whether `query` raised CAST_INVALID_INPUT (None: it answered), and the parts read, per mode. */
    def run(query: String) = Seq("on", "off").map { mode =>
      withSQLConf(PersistConf.PushdownMode.key -> mode) {
        val raised = try { sql(query).collect(); None } catch {
          case e: Exception => Some(e.getMessage.contains("CAST_INVALID_INPUT"))
        }
        (raised, ScanReports.last(spark).map(_.metrics.partsKept))
      }
    }
    // Whether the N/A rows reach the cast depends on Spark (the event_ts filter also goes to Parquet),
    // not on pruning: both modes read them and agree.
    val both = run(s"SELECT n FROM persist.codes WHERE CAST(code_str AS INT) > 5 AND event_ts < $ThirdDay")
    assert(both.map(_._2) === Seq(Seq(2 + NotAvailable.size), Seq(Days)))
    assert(both.map(_._1).distinct.size === 1, both)
    assert(run("SELECT n FROM persist.codes WHERE CAST(code_str AS INT) > 100") ===
      Seq((Some(true), Seq(NotAvailable.size)), (Some(true), Seq(Days))))
    // try_cast gives NULL for N/A: no part may raise.
    assertReads("SELECT n FROM persist.codes WHERE try_cast(code_str AS INT) > 100", kept = 0, rows = 0)
    assertReads("SELECT n FROM persist.codes WHERE try_cast(code_str AS BIGINT) = 19 AND n < 300", kept = 3, rows = 3)
  }

  test("timestamps and dates stored as text prune; another session zone widens the bounds") {
    assertReads("SELECT n FROM persist.codes WHERE CAST(ts_str AS TIMESTAMP) >= TIMESTAMP '2026-01-10 00:00:00'",
      kept = 1, rows = 20)
    assertReads("SELECT n FROM persist.codes WHERE CAST(ts_str AS DATE) = DATE '2026-01-05'", kept = 1, rows = 20)
    withSQLConf(SQLConf.SESSION_LOCAL_TIMEZONE.key -> "America/Los_Angeles") {
      // In Los Angeles, day 9's text is 8 hours later than in UTC, day 8's is still before; the bounds widen by 36 h.
      assertReads("SELECT n FROM persist.codes WHERE CAST(ts_str AS TIMESTAMP) >= TIMESTAMP '2026-01-10 00:00:00'",
        kept = 2, rows = 20)
    }
  }

  test("without cast stats (castStats=false at write, or a shard written before them), casts of text read every part") {
    sql("CREATE TABLE persist.plain (code_str STRING)")
    withSQLConf(PersistConf.CastStats.key -> "false") {
      ShardWriter.write(spark.range(5).select(col("id").cast("string").as("code_str"), lit(Start).as("ingest_ms")),
        store.open("plain"), WriteOptions(timeCol = Some("ingest_ms")))
    }
    assert(store.open("plain").state.parts.forall(_.stats.get.columns.values.forall(_.casts.isEmpty)))
    val (result, reports) = inEveryMode("SELECT * FROM persist.plain WHERE CAST(code_str AS INT) > 100")
    assert(result.isEmpty)
    assert(reports("on").map(_.metrics.partsPruned) === Seq(0))
  }
}
