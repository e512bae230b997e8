package sparkpersist.catalyst

import org.apache.spark.sql.functions.{col, concat, lit, timestamp_millis, udf}

import sparkpersist.{PersistConf, PersistSparkSession}
import sparkpersist.api.MonotoneFunctions
import sparkpersist.compact.{CompactionSettings, Compactor}
import sparkpersist.stats.MembershipFilter
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Point lookups through membership filters, and piecewise monotone functions, end to end: a shard
 * of sixteen parts, one per 3 hours of two days. Users and sessions interleave across parts (every
 * part's min/max spans almost all of them); `user_id` and `session_id` are indexed.
 */
class IndexPruningSuite extends PersistSparkSession {

  private val Start = 1767225600000L // 2026-01-01T00:00:00Z
  private val Hour = 3600000L
  private val Parts = 16

  /** Part p: 20 rows at p * 3h + i * 7.5 min, user_id = p + 16 i, session_id = 's-' || user_id * 7919. */
  override def beforeAll(): Unit = {
    super.beforeAll()
    sql("CREATE TABLE persist.visits (ts TIMESTAMP, user_id BIGINT, session_id STRING)")
    val shard = store.open("visits")
    (0 until Parts).foreach { p =>
      val rows = spark.range(20).select(
        timestamp_millis(lit(Start + p * 3 * Hour) + col("id") * (Hour / 8)).as("ts"),
        (col("id") * Parts + p).as("user_id"),
        concat(lit("s-"), ((col("id") * Parts + p) * 7919).cast("string")).as("session_id"),
        lit(Start + (p + 1) * 3 * Hour).as("ingest_ms")).coalesce(1)
      ShardWriter.write(rows, shard, WriteOptions(timeCol = Some("ingest_ms"), indexColumns = Seq("user_id", "session_id")))
    }
    assert(shard.state.partCount === Parts)
  }

  private def assertReads(query: String, kept: Int, expectedRows: Int): Unit = {
    val (rows, reports) = inEveryMode(query)
    assert(rows.size === expectedRows, query)
    assert(reports("on").map(_.metrics.partsKept) === Seq(kept), query)
    assert(reports("soft").map(_.metrics.partsPruned) === Seq(Parts - kept), query)
  }

  test("IN, = and <=> on indexed columns read only the parts holding the constants") {
    assertReads("SELECT * FROM persist.visits WHERE user_id IN (17, 35, 100000)", kept = 2, expectedRows = 2)
    assertReads("SELECT * FROM persist.visits WHERE user_id = 18", kept = 1, expectedRows = 1)
    assertReads("SELECT * FROM persist.visits WHERE user_id <=> 19", kept = 1, expectedRows = 1)
    assertReads(s"SELECT * FROM persist.visits WHERE session_id = 's-${17 * 7919}'", kept = 1, expectedRows = 1)
    assertReads("SELECT * FROM persist.visits WHERE session_id = 's-0' OR user_id = 300", kept = 2, expectedRows = 2)
  }

  test("columns nobody named get filters automatically where the budget leaves room, and prune") {
    def accounts(name: String): Unit = {
      sql(s"CREATE TABLE persist.$name (ts TIMESTAMP, account BIGINT, region STRING)")
      val shard = store.open(name)
      (0 until 8).foreach { p =>
        // 10 accounts per part, interleaved: every part's min/max spans nearly all 80.
        val rows = spark.range(50).select(timestamp_millis(lit(Start + p * Hour) + col("id")).as("ts"),
          (col("id") % 10 * 8 + p).as("account"), concat(lit("r-"), (col("id") % 5 * 8 + p).cast("string")).as("region"),
          lit(Start + p).as("ingest_ms")).coalesce(1)
        ShardWriter.write(rows, shard, WriteOptions(timeCol = Some("ingest_ms")))
      }
    }
    accounts("accounts")
    val shard = store.open("accounts")
    assert(shard.state.parts.forall(_.stats.exists(s => s.columns.values.count(_.members.isDefined) == 2)))
    def reads(table: String, where: String, kept: Int, rows: Int): Unit = {
      val (result, reports) = inEveryMode(s"SELECT * FROM persist.$table WHERE $where")
      assert(result.size === rows, where)
      assert(reports("on").map(_.metrics.partsKept) === Seq(kept), where)
    }
    reads("accounts", "account IN (9, 1000)", kept = 1, rows = 5)
    reads("accounts", "region = 'r-17' OR account = 2", kept = 2, rows = 15)
    withSQLConf(PersistConf.AutoIndexValues.key -> "0")(accounts("unindexed"))
    assert(store.open("unindexed").state.parts.forall(_.stats.exists(_.columns.values.forall(_.members.isEmpty))))
    reads("unindexed", "account IN (9, 1000)", kept = 8, rows = 5)
  }

  test("array_contains prunes with the filters of array elements, automatic or named") {
    sql("CREATE TABLE persist.tagged (ts TIMESTAMP, tags ARRAY<STRING>, codes ARRAY<BIGINT>)")
    val shard = store.open("tagged")
    (0 until 4).foreach { p =>
      // Part p: tags t-p, t-(p+4), t-(p+8) and a null element; codes p * 1000 + 7 and p * 1000 + 9.
      val rows = spark.range(12).selectExpr(s"timestamp_millis(${Start + p} + id) AS ts",
        s"array(concat('t-', CAST(${p} + 4 * (id % 3) AS STRING)), IF(id = 0, NULL, 'w')) AS tags",
        s"array(CAST(${p * 1000 + 7} AS BIGINT), CAST(${p * 1000 + 9} AS BIGINT)) AS codes",
        s"${Start + p} AS ingest_ms").coalesce(1)
      ShardWriter.write(rows, shard, WriteOptions(timeCol = Some("ingest_ms"), indexColumns = Seq("codes")))
    }
    def reads(where: String, kept: Int, rows: Int): Unit = {
      val (result, reports) = inEveryMode(s"SELECT * FROM persist.tagged WHERE $where")
      assert(result.size === rows, where)
      assert(reports("on").map(_.metrics.partsKept) === Seq(kept), where)
    }
    reads("array_contains(tags, 't-9')", kept = 1, rows = 4)
    reads("array_contains(tags, 't-99')", kept = 0, rows = 0)
    reads("NOT array_contains(tags, 't-99')", kept = 4, rows = 44)
    reads("array_contains(codes, 2007)", kept = 1, rows = 12)
    reads("array_contains(codes, 2008) OR array_contains(tags, 't-0')", kept = 1, rows = 4)
  }

  test("compaction keeps the membership filters of the columns its input parts index") {
    sql("CREATE TABLE persist.merged (user_id BIGINT, other BIGINT)")
    val shard = store.open("merged")
    (0 until 4).foreach { b =>
      val rows = spark.range(10).select((col("id") * 4 + b).as("user_id"), col("id").as("other"),
        lit(Start + b).as("ingest_ms")).coalesce(1)
      ShardWriter.write(rows, shard, WriteOptions(timeCol = Some("ingest_ms"), indexColumns = Seq("user_id")))
    }
    Compactor.compact(spark, shard, CompactionSettings(fanIn = 2, targetBytes = 1L << 30, windowMs = 1L << 40, retentionMs = None))
    val parts = shard.state.parts.toSeq
    assert(parts.size === 1)
    val userId = shard.state.schema.column("user_id").get.id
    val other = shard.state.schema.column("other").get.id
    val filter = parts.head.stats.get.columns(userId).members.get
    (0L until 40L).foreach(v => assert(filter.mayContain(MembershipFilter.hash(v))))
    assert(parts.head.stats.get.columns(other).members.isEmpty)
  }

  test("a user function declared monotone prunes; undeclared it keeps every part") {
    val sixHours = 6 * Hour // a local: the function must not capture the suite
    val bucket = udf((t: java.sql.Timestamp) => t.getTime / sixHours)
    spark.udf.register("bucket6h", bucket)
    val query = s"SELECT * FROM persist.visits WHERE bucket6h(ts) = ${(Start + 30 * Hour) / (6 * Hour)}"
    // Parts 10 and 11 cover hours 30 to 36.
    assertReads(query, kept = Parts, expectedRows = 40)
    try {
      MonotoneFunctions.register(spark, "bucket6h", bucket, "up")
      assert(spark.conf.get(PersistConf.MonotoneUdfs.key) === "bucket6h:up")
      assertReads(query, kept = 2, expectedRows = 40)
      assertReads(s"SELECT * FROM persist.visits WHERE bucket6h(ts) > ${(Start + 40 * Hour) / (6 * Hour)}",
        kept = 2, expectedRows = 40)
    } finally spark.conf.unset(PersistConf.MonotoneUdfs.key)
    val error = intercept[IllegalArgumentException](MonotoneFunctions.declare(spark, "bucket6h", "sideways"))
    assert(error.getMessage.contains("direction must be 'up' or 'down', got 'sideways'"))
  }

  test("a declared user function that maps null to a value keeps the parts holding nulls") {
    sql("CREATE TABLE persist.maybe_ts (ts TIMESTAMP, n INT)")
    val shard = store.open("maybe_ts")
    // Part 0: 5 rows without ts; part 1: 5 rows at hours 0 to 4 of Start.
    Seq(lit(null).cast("timestamp"), timestamp_millis(lit(Start) + col("id") * Hour)).foreach { ts =>
      ShardWriter.write(spark.range(5).select(ts.as("ts"), col("id").cast("int").as("n")).coalesce(1), shard, WriteOptions())
    }
    val (start, hour) = (Start, Hour) // locals: the function must not capture the suite
    val hours = udf((t: java.sql.Timestamp) => if (t == null) -1L else (t.getTime - start) / hour)
    MonotoneFunctions.register(spark, "hours_or_none", hours, "up")
    try {
      val (nulls, reports) = inEveryMode("SELECT * FROM persist.maybe_ts WHERE hours_or_none(ts) = -1")
      assert(nulls.size === 5)
      // Part 0's nulls may map to anything; part 1's hours 0 to 4 never give -1.
      assert(reports("on").map(_.metrics.partsKept) === Seq(1))
      val (third, thirdReports) = inEveryMode("SELECT n FROM persist.maybe_ts WHERE hours_or_none(ts) = 3")
      assert(third === Seq("[3]"))
      assert(thirdReports("on").map(_.metrics.partsKept) === Seq(2))
    } finally spark.conf.unset(PersistConf.MonotoneUdfs.key)
  }

  test("hour(), date_format() and month() prune within a two-day window") {
    // Parts 1 and 9 start at 03:00; part 0 ends 02:22, part 2 starts 06:00.
    assertReads("SELECT * FROM persist.visits WHERE hour(ts) = 3", kept = 2, expectedRows = 16)
    assertReads("SELECT * FROM persist.visits WHERE date_format(ts, 'yyyy-MM-dd') >= '2026-01-02'",
      kept = 8, expectedRows = 160)
    assertReads("SELECT * FROM persist.visits WHERE month(ts) = 2", kept = 0, expectedRows = 0)
  }
}
