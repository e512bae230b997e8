package sparkpersist.catalyst

import org.apache.hadoop.fs.FileUtil
import org.apache.spark.sql.{AnalysisException, Row}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.functions.{col, lit, timestamp_millis, when}

import sparkpersist.plan.SoftPushdownViolation
import sparkpersist.scan.ScanReports
import sparkpersist.shard.{BatchMeta, RunMeta}
import sparkpersist.stats.ColumnStats
import sparkpersist.write.{ShardWriter, WriteOptions}
import sparkpersist.{PersistConf, PersistSparkSession}

/**
 * Part pruning end to end: a shard of ten daily parts (one batch a day), queried with the
 * extension installed. Every query runs with pushdown `on`, `soft` (failing on violations) and
 * `off`; results must be identical and the parts read are asserted exactly.
 */
class PruningSuite extends PersistSparkSession {

  private val Start = 1767225600000L // 2026-01-01T00:00:00Z
  private val Day = 86400000L
  private val Days = 10

  /** Day d: 20 events at d + i hours, n = 100 d + i; amount is null on day 3 only; code 'x' on day 5. */
  override def beforeAll(): Unit = {
    super.beforeAll()
    sql("CREATE TABLE persist.events (event_ts TIMESTAMP, country STRING, amount DOUBLE, n BIGINT, code STRING)")
    val shard = store.open("events")
    (0 until Days).foreach { d =>
      val day = spark.range(20).select(
        timestamp_millis(lit(Start + d * Day) + col("id") * 3600000L).as("event_ts"),
        when(col("id") % 2 === 0, "US").otherwise("DE").as("country"),
        (if (d == 3) lit(null).cast("double") else col("id").cast("double") * 1.5).as("amount"),
        (col("id") + d * 100L).as("n"),
        (if (d == 5) lit("x") else col("id").cast("string")).as("code"),
        lit(Start + (d + 1) * Day - 1).as("ingest_ms")).coalesce(1)
      ShardWriter.write(day, shard, WriteOptions(timeCol = Some("ingest_ms")))
    }
    assert(shard.state.partCount === Days)
  }

  /** Asserts `query` reads `kept` of the ten parts with pushdown on, and all of them otherwise. */
  private def assertReads(query: String, kept: Int, expectedRows: Int = -1): Unit = {
    val (rows, reports) = inEveryMode(query)
    if (expectedRows >= 0) assert(rows.size === expectedRows, query)
    assert(reports("on").map(_.metrics.partsKept) === Seq(kept), query)
    assert(reports("on").map(_.metrics.partsPruned) === Seq(Days - kept), query)
    assert(reports("soft").map(_.metrics.partsKept) === Seq(Days), query)
    assert(reports("soft").map(_.metrics.partsPruned) === Seq(Days - kept), query)
    assert(reports("off").map(_.metrics.partsKept) === Seq(Days), query)
  }

  test("temporal window against mz_now() reads only the recent parts") {
    assertReads("SELECT n FROM persist.events WHERE mz_now() <= event_ts + INTERVAL 2 DAYS", kept = 2, expectedRows = 40)
  }

  test("date_trunc, casts, timestamp +/- interval and arithmetic prune") {
    assertReads("SELECT n FROM persist.events WHERE date_trunc('DAY', event_ts) = TIMESTAMP '2026-01-04 00:00:00'",
      kept = 1, expectedRows = 20)
    assertReads("SELECT n FROM persist.events WHERE CAST(event_ts AS DATE) = DATE '2026-01-05'", kept = 1, expectedRows = 20)
    assertReads("SELECT n FROM persist.events WHERE event_ts + INTERVAL 1 DAY < TIMESTAMP '2026-01-03 00:00:00'",
      kept = 1, expectedRows = 20)
    assertReads("SELECT n FROM persist.events WHERE event_ts - INTERVAL 12 HOURS >= TIMESTAMP '2026-01-10 00:00:00'",
      kept = 1, expectedRows = 8)
    assertReads("SELECT n FROM persist.events WHERE n * 2 + 1 > 1801", kept = 1, expectedRows = 19)
    assertReads("SELECT n FROM persist.events WHERE unix_millis(event_ts) >= " + (Start + 9 * Day), kept = 1,
      expectedRows = 20)
  }

  test("BETWEEN prunes (Spark 4 rewrites it into a With of its input)") {
    assertReads("SELECT n FROM persist.events WHERE n BETWEEN 250 AND 419", kept = 2, expectedRows = 40)
    assertReads("SELECT n FROM persist.events WHERE n NOT BETWEEN 0 AND 819", kept = 1, expectedRows = 20)
    assertReads("SELECT n FROM persist.events WHERE n * 2 BETWEEN 1000 AND 1010", kept = 1, expectedRows = 6)
  }

  test("IS [NOT] NULL, OR / NOT, CASE and COALESCE prune") {
    assertReads("SELECT n FROM persist.events WHERE amount IS NULL", kept = 1, expectedRows = 20)
    assertReads("SELECT n FROM persist.events WHERE amount IS NOT NULL AND n < 100", kept = 1, expectedRows = 20)
    assertReads("SELECT n FROM persist.events WHERE NOT (n >= 200) OR n >= 900", kept = 3, expectedRows = 60)
    assertReads("SELECT n FROM persist.events WHERE COALESCE(amount, -1.0) < 0", kept = 1, expectedRows = 20)
    assertReads("SELECT n FROM persist.events WHERE CASE WHEN n < 100 THEN 'a' ELSE 'b' END = 'a'", kept = 1,
      expectedRows = 20)
  }

  test("the vectorized decision reads the same parts as the interpreter alone") {
    // (query, parts read): columns against constants and mz_now(), functions of a column, null
    // tests, a conjunct left to the interpreter that cannot raise (country), one that may (cast).
    val queries = Seq(
      "n >= 420 AND n < 610" -> 2, "NOT (n >= 200) OR n >= 900" -> 3, "amount IS NULL" -> 1,
      "amount > 27.0" -> 9, "mz_now() <= event_ts + INTERVAL 2 DAYS" -> 2,
      "event_ts >= mz_now() - INTERVAL 36 HOURS AND country = 'US'" -> 2, "n * 2 + 1 > 1801" -> 1,
      "n = 305 OR n IS NULL" -> 1,
      // ANSI: the cast may raise only on day 5 (its 'x', as the cast stats say), so day 5 is read
      // although n < 100 is false there, beside day 0 (without cast stats, every part would be).
      "n < 100 AND CAST(code AS INT) > 3" -> 2)
    for ((filter, kept) <- queries) {
      val query = s"SELECT n FROM persist.events WHERE $filter"
      val byMode = Seq("true", "false").map { vectorized =>
        withSQLConf(PersistConf.VectorizedDecision.key -> vectorized) {
          val (rows, reports) = inEveryMode(query)
          (rows, reports("on").map(_.metrics.partsKept))
        }
      }
      assert(byMode.head === byMode.last, filter)
      assert(byMode.head._2 === Seq(kept), filter)
    }
  }

  test("non-monotone functions and UDFs read every part, with correct results") {
    assertReads("SELECT n FROM persist.events WHERE n % 7 = 3", kept = Days, expectedRows = 28)
    spark.udf.register("plus_one", (x: Long) => x + 1)
    assertReads("SELECT n FROM persist.events WHERE plus_one(n) = 906", kept = Days, expectedRows = 1)
  }

  test("a possible ANSI error keeps its part: the query raises as it would unpruned") {
    Seq("on", "off").foreach { mode =>
      withSQLConf(PersistConf.PushdownMode.key -> mode) {
        // Only day 5 holds a code that does not cast; pruning must not hide its error.
        val e = intercept[Exception](sql("SELECT n FROM persist.events WHERE CAST(code AS INT) > 1000").collect())
        assert(e.getMessage.contains("CAST_INVALID_INPUT"), mode)
        // n * 10^17 overflows from n = 93 on: every day but day 0 may raise and is kept.
        val o = intercept[Exception](sql("SELECT n FROM persist.events WHERE n * 100000000000000000 < 0").collect())
        assert(o.getMessage.contains("ARITHMETIC_OVERFLOW"), mode)
      }
    }
    withSQLConf(PersistConf.PushdownMode.key -> "on") {
      intercept[Exception](sql("SELECT n FROM persist.events WHERE n * 100000000000000000 < 0").collect())
      assert(ScanReports.last(spark).map(_.metrics.partsKept) === Seq(Days - 1))
    }
  }

  test("joins, self-joins, unions, subqueries, CTEs and views prune each scan on its own filter") {
    val (join, joinReports) = inEveryMode(
      "SELECT a.n, b.n FROM persist.events a JOIN persist.events b ON a.country = b.country " +
        "WHERE a.n < 2 AND b.n >= 918")
    assert(join === Seq("[0,918]", "[1,919]"))
    assert(joinReports("on").map(_.metrics.partsKept).sorted === Seq(1, 1))
    val (union, unionReports) = inEveryMode(
      "SELECT n FROM persist.events WHERE n < 100 UNION ALL SELECT n FROM persist.events WHERE n >= 900")
    assert(union.size === 40)
    assert(unionReports("on").map(_.metrics.partsKept) === Seq(1, 1))
    val (cte, cteReports) = inEveryMode(
      "WITH recent AS (SELECT * FROM persist.events WHERE mz_now() <= event_ts + INTERVAL 1 DAY) " +
        "SELECT count(*) FROM recent WHERE country = 'US'")
    assert(cte === Seq("[10]"))
    assert(cteReports("on").map(_.metrics.partsKept) === Seq(1))
    sql("CREATE OR REPLACE TEMP VIEW early AS SELECT * FROM persist.events WHERE n < 300")
    val (view, viewReports) = inEveryMode("SELECT count(*) FROM early WHERE amount IS NULL")
    assert(view === Seq("[0]"))
    assert(viewReports("on").map(_.metrics.partsKept) === Seq(0))
    val (sub, _) = inEveryMode(
      "SELECT count(*) FROM persist.events WHERE n IN (SELECT n + 1 FROM persist.events WHERE n >= 918)")
    assert(sub === Seq("[1]"))
  }

  test("EXPLAIN shows the shard, the as-of and parts kept/total") {
    val plan = sql("EXPLAIN SELECT * FROM persist.events WHERE mz_now() <= event_ts + INTERVAL 2 DAYS")
      .collect().head.getString(0)
    val asOf = Start + Days * Day - 1
    assert(plan.contains(s"PersistScan events snapshot asOf=$asOf"), plan)
    assert(plan.contains("parts: 2/10"), plan)
    assert(plan.contains("proven true: 2"), plan) // every event of days 8 and 9 lies in the window
  }

  test("mz_now() is the query's as-of, configured or upper - 1") {
    val asOf = Start + Days * Day - 1
    val now = sql("SELECT unix_millis(mz_now()), count(*) FROM persist.events").collect().head
    assert(now === Row(asOf, 200L))
    withSQLConf(PersistConf.AsOf.key -> (Start + 2 * Day - 1).toString) {
      val earlier = sql("SELECT unix_millis(mz_now()), count(*) FROM persist.events").collect().head
      assert(earlier === Row(Start + 2 * Day - 1, 40L))
      assert(sql("SELECT count(*) FROM persist.events WHERE mz_now() <= event_ts + INTERVAL 1 DAY")
        .collect().head === Row(20L))
    }
    val e = intercept[AnalysisException](sql("SELECT mz_now(1)").collect())
    assert(e.getCondition === "WRONG_NUM_ARGS.WITHOUT_SUGGESTION")
    assert(e.getMessageParameters.get("actualNum") === "1" && e.getMessageParameters.get("expectedNum") === "0")
  }

  test("the rule is idempotent and leaves plans without persist scans untouched") {
    val rule: Rule[LogicalPlan] = PrunePersistParts
    val optimized = sql("SELECT n FROM persist.events WHERE n < 100").queryExecution.optimizedPlan
    assert(rule(optimized) eq optimized)
    val plain = spark.range(10).where("id < 3").queryExecution.optimizedPlan
    assert(rule(plain) eq plain)
  }

  /** A shard `name` of one part: day 0's file (n in 0..19), whose stats claim n is in [1000, 2000]. */
  private def lyingShard(name: String): Unit = {
    sql(s"CREATE TABLE persist.$name (event_ts TIMESTAMP, country STRING, amount DOUBLE, n BIGINT, code STRING)")
    val honest = store.open("events")
    val liar = store.open(name)
    val day0 = honest.state.parts.next()
    val conf = spark.sessionState.newHadoopConf()
    val fs = honest.partPath(day0).getFileSystem(conf)
    FileUtil.copy(fs, honest.partPath(day0), fs, liar.partPath(day0), false, conf)
    val nId = honest.state.schema.column("n").get.id
    val lie = day0.copy(stats = day0.stats.map(s => s.copy(columns = s.columns + (nId -> ColumnStats(0, Some(1000L), Some(2000L))))))
    liar.log.compareAndAppend(0, BatchMeta("lie", 0, day0.maxTime + 1, IndexedSeq(RunMeta(IndexedSeq(lie))), 0L))
  }

  test("soft mode catches a part whose statistics lie, and can fail the query") {
    // A filter n < 100 would wrongly skip the lying part.
    lyingShard("liar")
    val query = "SELECT n FROM persist.liar WHERE n < 100"
    withSQLConf(PersistConf.PushdownMode.key -> "on") {
      assert(sql(query).collect().isEmpty) // what a lying part costs: the rows are lost
    }
    withSQLConf(PersistConf.PushdownMode.key -> "soft") {
      assert(sql(query).collect().length === 20) // soft mode still returns them
      assert(ScanReports.last(spark).map(_.softViolations.map(_.sum)) === Seq(Some(20L)))
    }
    withSQLConf(PersistConf.PushdownMode.key -> "soft", PersistConf.SoftFailOnViolation.key -> "true") {
      val e = intercept[Exception](sql(query).collect())
      val violation = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
        .collectFirst { case v: SoftPushdownViolation => v }.getOrElse(fail(e))
      assert(violation.getCondition === "PERSIST_SOFT_PUSHDOWN_VIOLATION" && violation.getSqlState === "XX000")
      assert(violation.getMessage.startsWith("[PERSIST_SOFT_PUSHDOWN_VIOLATION] Soft pushdown violation in shard 'liar'"),
        violation.getMessage)
      assert(violation.getMessage.endsWith(s"Set ${PersistConf.PushdownMode.key}=off to read every part, and report " +
        "this as a bug. SQLSTATE: XX000"), violation.getMessage)
    }
  }

  test("parts on which the filter is proven true are counted, with and without the vectorized decision") {
    // Day d holds n in [100 d, 100 d + 19]: n >= 410 is false on days 0-3, undecided on day 4, true on days 5-9.
    // amount is null on day 3 only and at least 0 elsewhere; every event_ts of day d lies in [d, d + 1).
    val queries = Seq(
      ("n >= 410", 6, 5, 110), ("amount IS NULL", 1, 1, 20), ("amount > -1.0", 9, 9, 180),
      ("n >= 410 AND amount >= 0", 6, 5, 110), ("event_ts < TIMESTAMP '2026-01-03 00:00:00' OR n > 905", 3, 2, 54),
      ("n >= 410 OR amount IS NULL", 7, 6, 130))
    for ((filter, kept, proven, rows) <- queries; vectorized <- Seq("true", "false")) {
      withSQLConf(PersistConf.VectorizedDecision.key -> vectorized) {
        val (result, reports) = inEveryMode(s"SELECT n FROM persist.events WHERE $filter")
        assert(result.size === rows, filter)
        assert(reports("on").map(r => (r.metrics.partsKept, r.metrics.partsProvenTrue)) === Seq((kept, proven)), filter)
        // Soft mode reads every part and verifies the proven ones row by row (inEveryMode fails on a violation).
        assert(reports("soft").map(r => (r.metrics.partsKept, r.metrics.partsProvenTrue)) === Seq((Days, proven)), filter)
        assert(reports("off").map(_.metrics.partsProvenTrue) === Seq(0), filter)
        assert(reports("on").head.toMap("parts_proven_true") === proven)
      }
    }
  }

  test("soft mode catches a part wrongly proven true, and can fail the query") {
    // The lying part claims n >= 1000 on every row: n >= 1000 is "proven true", yet no row passes.
    lyingShard("liar_true")
    val query = "SELECT n FROM persist.liar_true WHERE n >= 1000"
    withSQLConf(PersistConf.PushdownMode.key -> "soft") {
      assert(sql(query).collect().isEmpty) // Spark's filter above the scan still decides every row
      assert(ScanReports.last(spark).map(r => (r.metrics.partsProvenTrue, r.softViolations.map(_.sum))) ===
        Seq((1L, Some(20L))))
    }
    withSQLConf(PersistConf.PushdownMode.key -> "soft", PersistConf.SoftFailOnViolation.key -> "true") {
      val e = intercept[Exception](sql(query).collect())
      assert(e.getMessage.contains("was proven true on every row of part"), e.getMessage)
    }
  }
}
