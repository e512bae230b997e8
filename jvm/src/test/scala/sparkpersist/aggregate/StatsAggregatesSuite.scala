package sparkpersist.aggregate

import org.apache.spark.sql.functions._

import sparkpersist.{PersistConf, PersistSparkSession}
import sparkpersist.scan.ScanReports
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Aggregates answered from statistics, end to end, against an oracle: the same rows in a plain
 * Spark temporary view. A shard of six daily parts (one batch a day, 20 events each): `day` is
 * constant in each part, `n` holds a null on day 2 and only nulls on day 3, `country` varies. Each
 * query runs with pushdown on, soft (failing on violations) and off; all equal the oracle's answer,
 * and pushdown on answers exactly the parts said from their statistics and reads the others.
 */
class StatsAggregatesSuite extends PersistSparkSession {

  private val Start = 1767225600000L // 2026-01-01T00:00:00Z
  private val Day = 86400000L
  private val Days = 6

  override def beforeAll(): Unit = {
    super.beforeAll()
    sales("sales")
    days.reduce(_ union _).drop("ingest_ms").createOrReplaceTempView("oracle")
  }

  /** A shard `name` of the six days' rows, one part per day. */
  private def sales(name: String): Unit = {
    sql(s"CREATE TABLE persist.$name (day DATE, ts TIMESTAMP, id BIGINT, n INT, amount DOUBLE, country STRING) " +
      "TBLPROPERTIES ('order_by' = 'ts')")
    val shard = store.open(name)
    days.foreach(df => ShardWriter.write(df, shard, WriteOptions(timeCol = Some("ingest_ms"))))
    assert(shard.state.partCount === Days)
  }

  private lazy val days = (0 until Days).map { d =>
      spark.range(20).select(
        to_date(timestamp_millis(lit(Start + d * Day))).as("day"),
        timestamp_millis(lit(Start + d * Day) + col("id") * 3600000L).as("ts"),
        (col("id") + d * 100L).as("id"),
        (if (d == 3) lit(null).cast("int") else when(col("id") === 7 && d == 2, null).otherwise(col("id") * 2 - d))
          .cast("int").as("n"),
        (col("id") * 1.5 - 3).as("amount"),
        when(col("id") % 3 === 0, "US").otherwise("DE").as("country"),
        lit(Start + (d + 1) * Day - 1).as("ingest_ms")).coalesce(1)
    }

  /**
   * `query` over `{t}` gives the oracle's rows in every mode; with pushdown on, `fromStats` parts
   * are answered from statistics and `read` parts are read.
   */
  private def check(query: String, fromStats: Int, read: Int, table: String = "persist.sales",
      oracle: String = "oracle"): Unit = {
    val expected = sql(query.replace("{t}", oracle)).collect().map(_.toString).toSeq.sorted
    val (rows, reports) = inEveryMode(query.replace("{t}", table))
    assert(rows === expected, query)
    assert(reports("on").map(r => (r.metrics.partsFromStats, r.metrics.partsKept)) === Seq((fromStats, read)), query)
    assert(reports("soft").map(_.metrics.partsFromStats) === Seq(0), query)
    assert(reports("off").map(_.metrics.partsFromStats) === Seq(0), query)
  }

  test("unfiltered count, min and max read no part") {
    check("SELECT count(*) FROM {t}", fromStats = Days, read = 0)
    check("SELECT count(*), count(n), min(n), max(n), min(ts), max(ts), min(day), max(id) FROM {t}",
      fromStats = Days, read = 0)
    // Expressions over aggregates, and aliases.
    check("SELECT max(id) - min(id) AS span, count(*) + 1 AS c1, count(1) FROM {t}", fromStats = Days, read = 0)
  }

  test("a filter answers the parts it is proven true on and reads those it straddles") {
    // Day 2 straddles 2026-01-03 10:00; days 3-5 lie after it; days 0-1 are ruled out.
    check("SELECT count(*), max(ts), min(id) FROM {t} WHERE ts >= TIMESTAMP '2026-01-03 10:00:00'",
      fromStats = 3, read = 1)
    check("SELECT count(n), max(n) FROM {t} WHERE day >= DATE '2026-01-02' AND id >= 0", fromStats = 5, read = 0)
    // Every part ruled out: nothing from statistics, nothing read, and the empty answers of SQL.
    check("SELECT count(*), min(id), max(ts) FROM {t} WHERE id < 0", fromStats = 0, read = 0)
    check("SELECT count(*), min(id) FROM {t} WHERE day > DATE '2100-01-01'", fromStats = 0, read = 0)
  }

  test("grouped by a column constant in each part") {
    check("SELECT day, count(*), max(id), min(n) FROM {t} GROUP BY day", fromStats = Days, read = 0)
    check("SELECT day, count(*) FROM {t} WHERE ts >= TIMESTAMP '2026-01-03 10:00:00' GROUP BY day",
      fromStats = 3, read = 1)
    // country varies within every part: nothing is answered from statistics.
    check("SELECT country, count(*) FROM {t} GROUP BY country", fromStats = 0, read = Days)
    // n is null on every row of 2026-01-04: one group, NULL, answered from statistics.
    check("SELECT n, count(*) FROM {t} WHERE day = DATE '2026-01-04' GROUP BY n", fromStats = 1, read = 0)
  }

  test("as of an earlier time, the parts visible then") {
    withSQLConf(PersistConf.AsOf.key -> (Start + 4 * Day - 1).toString) {
      val (rows, reports) = inEveryMode("SELECT count(*), max(id), min(ts) FROM persist.sales")
      assert(rows === sql("SELECT count(*), max(id), min(ts) FROM oracle WHERE day < DATE '2026-01-05'")
        .collect().map(_.toString).toSeq)
      assert(reports("on").map(r => (r.metrics.partsFromStats, r.metrics.partsKept)) === Seq((4, 0)))
    }
  }

  test("what statistics cannot answer exactly is read") {
    // Doubles (NaN, -0.0), DISTINCT, FILTER, other functions: read as before.
    check("SELECT min(amount), max(amount) FROM {t}", fromStats = 0, read = Days)
    check("SELECT count(DISTINCT id) FROM {t}", fromStats = 0, read = Days)
    check("SELECT count(*) FILTER (WHERE n > 3) FROM {t}", fromStats = 0, read = Days)
    check("SELECT sum(id), count(*) FROM {t}", fromStats = 0, read = Days)
    withSQLConf(PersistConf.StatsAggregates.key -> "false") {
      val (_, reports) = inEveryMode("SELECT count(*) FROM persist.sales")
      assert(reports("on").map(r => (r.metrics.partsFromStats, r.metrics.partsKept)) === Seq((0, Days)))
    }
  }

  test("a filter that may raise under ANSI proves nothing: the error is Spark's") {
    val query = "SELECT count(*) FROM {t} WHERE CAST(country AS INT) > 0"
    val expected = intercept[Exception](sql(query.replace("{t}", "oracle")).collect()).getMessage
    val got = intercept[Exception](sql(query.replace("{t}", "persist.sales")).collect()).getMessage
    assert(expected.contains("CAST_INVALID_INPUT") && got.contains("CAST_INVALID_INPUT"), got)
  }

  test("a shard with retractions is read: a retraction may cancel any row") {
    sql("CREATE TABLE persist.acc (k BIGINT, v BIGINT)")
    val shard = store.open("acc")
    ShardWriter.write(spark.range(10).selectExpr("id AS k", "id * 10 AS v", "1L AS t", "1L AS d").coalesce(1),
      shard, WriteOptions(timeCol = Some("t"), diffCol = Some("d")))
    ShardWriter.write(spark.range(3).selectExpr("id AS k", "id * 10 AS v", "2L AS t", "-1L AS d").coalesce(1),
      shard, WriteOptions(timeCol = Some("t"), diffCol = Some("d")))
    val (rows, reports) = inEveryMode("SELECT count(*), min(k), max(v) FROM persist.acc")
    assert(rows === Seq("[7,3,90]"))
    assert(reports("on").map(r => (r.metrics.partsFromStats, r.metrics.partsKept)) === Seq((0, 2)))
  }

  test("after DELETEs by position and whole parts, the parts no retraction names are answered from statistics") {
    sales("sales_d")
    // The oracle: plain Spark's rows for which neither DELETE's condition is true.
    val deletes = Seq("id = 105", "day = DATE '2026-01-06'")
    sql(s"SELECT * FROM oracle WHERE ${deletes.map(c => s"NOT coalesce($c, false)").mkString(" AND ")}")
      .createOrReplaceTempView("oracle_d")
    deletes.foreach(c => sql(s"DELETE FROM persist.sales_d WHERE $c"))
    val state = store.open("sales_d").state
    // One row of day 1 retracted by position (a part of one retraction, with positions); day 5's part negated.
    assert(state.parts.count(p => p.hasRetractions && !p.negated && p.positions.isDefined) === 1)
    assert(state.parts.count(_.negated) === 1)
    def checkD(query: String, fromStats: Int, read: Int): Unit =
      check(query, fromStats, read, table = "persist.sales_d", oracle = "oracle_d")
    // Days 0, 2, 3 and 4 answer everything; day 1 answers count(*) less its one position; the
    // retraction is read (it keeps no row); day 5 and its negation count as nothing.
    checkD("SELECT count(*) FROM {t}", fromStats = 5, read = 1)
    checkD("SELECT day, count(*) FROM {t} GROUP BY day", fromStats = 5, read = 1)
    // max(id) is not known of day 1 less a row: day 1 is read.
    checkD("SELECT count(*), max(id), min(ts) FROM {t}", fromStats = 4, read = 2)
    // The filter rules out days 0-1 (and the retraction, of day 1), answers days 3-4, reads day 2.
    checkD("SELECT count(*) FROM {t} WHERE ts >= TIMESTAMP '2026-01-03 10:00:00'", fromStats = 2, read = 1)
  }

  test("an aggregate answered whole from statistics is planned as its result, no job; one that reads is not") {
    def root(query: String) = sql(query).queryExecution.executedPlan
    for (query <- Seq("SELECT day, count(*), max(id) FROM persist.sales GROUP BY day",
        "SELECT max(id) - min(id) AS span, count(*) + 1 AS c1 FROM persist.sales WHERE day >= DATE '2026-01-05'")) {
      assert(root(query).isInstanceOf[StatsAnswerExec], root(query))
      sql(query).collect()
      assert(ScanReports.last(spark).map(r => (r.metrics.partsKept, r.metrics.partsFromStats)) ===
        Seq((0L, if (query.contains("GROUP BY")) Days.toLong else 2L)), query)
    }
    // A straddled part is read: the partial aggregate runs, beside the merged answers.
    assert(!root("SELECT count(*) FROM persist.sales WHERE ts >= TIMESTAMP '2026-01-03 10:00:00'").isInstanceOf[StatsAnswerExec])
    // A non-deterministic result is left to Spark.
    assert(!root("SELECT count(*) + rand() FROM persist.sales").isInstanceOf[StatsAnswerExec])
  }

  test("the answer is recorded in the scan report and EXPLAIN") {
    sql("SELECT count(*) FROM persist.sales WHERE ts >= TIMESTAMP '2026-01-03 10:00:00'").collect()
    assert(ScanReports.last(spark).map(_.toMap("parts_from_stats")) === Seq(3L))
    val plan = sql("EXPLAIN SELECT count(*) FROM persist.sales").collect().head.getString(0)
    assert(plan.contains("answered from stats: 6"), plan)
  }
}
