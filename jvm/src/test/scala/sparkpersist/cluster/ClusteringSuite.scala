package sparkpersist.cluster

import org.apache.spark.sql.{DataFrame, QueryTest}
import org.apache.spark.sql.functions.{col, timestamp_millis}

import sparkpersist.compact.{CompactOptions, CompactionResult, Lifecycle}
import sparkpersist.write.{ShardWriter, WriteOptions}
import sparkpersist.{PersistConf, PersistSparkSession}

/** The shape of Delta Lake's own `ClusterBy` table change (see `TableChanges`). */
private final case class ClusterBy(clusteringColumns: Seq[org.apache.spark.sql.connector.expressions.NamedReference])
  extends org.apache.spark.sql.connector.catalog.TableChange

/**
 * `CLUSTER BY` end to end: DDL, the layout clustering compaction writes, what it prunes against
 * the same rows compacted without clustering, and plain Spark over the same rows as the oracle.
 */
class ClusteringSuite extends QueryTest with PersistSparkSession {

  private val Day = 86400000L
  private val Hour = 3600000L
  private val Days = 4
  private val Countries = ClusterEvents.Countries

  /** Day `d`'s append `a` (of 4): 250 events of 8 countries and 4,000 users, ingested at hour 5(a + 1). */
  private def events(d: Int, a: Int): DataFrame =
    ClusterEvents(spark, d * 1000L + a * 250L, 250, 4000, d * Day + (a + 1) * 5 * Hour)

  private def load(table: String): Unit = {
    val shard = store.open(table)
    for (d <- 0 until Days; a <- 0 until 4) ShardWriter.write(events(d, a), shard, WriteOptions(timeCol = Some("ingest")))
  }

  private def compact(table: String, recluster: Boolean = false): CompactionResult =
    Lifecycle.compact(spark, table, CompactOptions(targetBytes = Some(1L << 30), recluster = recluster))

  /** The rows of `where` from the shard, in every pushdown mode, equal plain Spark's; returns the parts kept (pushdown on). */
  private def partsRead(table: String, where: String): Long = {
    val (rows, reports) = inEveryMode(s"SELECT id, country, user_id, amount FROM persist.$table WHERE $where")
    val oracle = sql(s"SELECT id, country, user_id, amount FROM oracle WHERE $where").collect().map(_.toString).toSeq.sorted
    assert(rows === oracle, where)
    reports("on").map(_.metrics.partsKept).sum
  }

  private lazy val prepared: Unit = {
    (0 until Days).flatMap(d => (0 until 4).map(events(d, _))).reduce(_ union _).drop("ingest").createOrReplaceTempView("oracle")
    sql("CREATE TABLE persist.plain (id BIGINT, country STRING, user_id INT, amount DOUBLE) TBLPROPERTIES ('order_by' = 'id')")
    sql("CREATE TABLE persist.clustered (id BIGINT, country STRING, user_id INT, amount DOUBLE) " +
      "CLUSTER BY (country, user_id) TBLPROPERTIES ('order_by' = 'id')")
    Seq("plain", "clustered").foreach(load)
  }

  test("CLUSTER BY at creation: sealed days become clustered batches of parts cut along the curve") {
    prepared
    val dayBytes = store.open("clustered").state.batches.take(4).map(_.bytes).sum
    withSQLConf(PersistConf.ClusterPartBytes.key -> (dayBytes / 8).toString) {
      // The last day is not sealed (no write after it): its 4 appends wait for a tier of 8, not clustered.
      val unsealed = 4
      assert(compact("plain").batchesAfter === Days - 1 + unsealed)
      val result = compact("clustered")
      assert((result.batchesBefore, result.batchesAfter) === (16, Days - 1 + unsealed))
      val state = store.open("clustered").state
      val ids = state.schema.clusteredIds
      assert(ids === Seq(2, 3))
      val (sealedDays, open) = state.batches.splitAt(Days - 1)
      sealedDays.foreach { b =>
        assert(b.clusteredBy === ids && b.appends === 4)
        assert(b.runs.size === b.partCount && b.partCount >= 6 && b.partCount <= 10, b.partCount)
      }
      assert(open.map(b => (b.clusteredBy, b.runs.size)) === Seq.fill(unsealed)((IndexedSeq.empty, 1)))
      // Every part is sorted by the order key, then time.
      state.parts.foreach { p =>
        val ids = spark.read.parquet(store.open("clustered").partPath(p).toString).select("id").collect().map(_.getLong(0)).toSeq
        assert(ids === ids.sorted, p.key)
      }

      // The same rows as plain Spark's, and as the unclustered shard's; fewer parts read per filter on a clustering column.
      val total = state.partCount.toLong
      val read = Seq("country = 'DE'", "user_id < 500", "country IN ('US', 'JP') AND user_id BETWEEN 1000 AND 1400",
        "country = 'FR' AND amount > 50", "id % 10 = 3").map { where =>
        val plain = partsRead("plain", where)
        assert(plain === Days - 1 + unsealed, where) // one part a sealed day, none separated from the others
        where -> partsRead("clustered", where)
      }
      read.foreach { case (where, n) => info(s"$where: $n of $total parts") }
      // The layout is deterministic (each day's sample is all its rows): the counts are exact. A
      // filter on one of two clustering columns keeping 1/8 of the rows reads about P/8 + sqrt(P)
      // of a day's P parts (a strip across the curve's squares); a day holds P = 8 or 9 here.
      assert(total === 3 * 8 + 1 + unsealed)
      assert(read.map(_._2 - unsealed) === Seq(12, 7, 8, 12, 25))
    }
  }

  test("inside a clustered part, rows of equal order key and time are sorted by the clustering columns") {
    // No order key: every part is sorted by time, and within a time by (country, user_id).
    sql("CREATE TABLE persist.tied (id BIGINT, country STRING, user_id INT, amount DOUBLE) CLUSTER BY (country, user_id)")
    val appends = (0 until 4).map(events(0, _)) :+ events(1, 0) // the second day's append seals the first
    appends.foreach(ShardWriter.write(_, store.open("tied"), WriteOptions(timeCol = Some("ingest"))))
    val dayBytes = store.open("tied").state.batches.take(4).map(_.bytes).sum
    withSQLConf(PersistConf.ClusterPartBytes.key -> (dayBytes / 4).toString) {
      assert(compact("tied").groupsMerged === 1)
    }
    def laidOut(): Unit = {
      val shard = store.open("tied")
      val day = shard.state.batches.head
      // Parts of a quarter of the day's bytes hold 249 of its 1,000 rows (rounded down): 5 parts.
      assert(day.clusteredBy === IndexedSeq(2, 3) && day.partCount === 5 && day.rowCount === 1000L)
      val times = (1 to 4).map(a => a * 5 * Hour)
      day.runs.flatMap(_.parts).foreach { p =>
        val rows = spark.read.parquet(shard.partPath(p).toString).select("time", "country", "user_id").collect()
          .map(r => (r.getLong(0), r.getString(1), r.getInt(2))).toSeq
        assert(rows.map(_._1).toSet.subsetOf(times.toSet), p.key)
        assert(rows === rows.sorted, p.key)
      }
      checkAnswer(sql("SELECT id, country, user_id, amount FROM persist.tied"),
        appends.reduce(_ union _).drop("ingest").collect().toSeq)
    }
    laidOut()
    // Laying the day out again merges its clustered runs, each spanning the day's times: they are
    // merged by time, not read one after the other as if they were appends in time order.
    withSQLConf(PersistConf.ClusterPartBytes.key -> (dayBytes / 4).toString) {
      assert(compact("tied", recluster = true).groupsMerged === 2)
    }
    laidOut()
  }

  test("incremental: clustered windows are left alone; a newly sealed day is clustered; cluster => true redoes all, " +
    "the open window too") {
    prepared
    val state = store.open("clustered").state
    assume(state.batches.count(_.clusteredBy.nonEmpty) === Days - 1, "runs after the first test")
    assert(compact("clustered").rounds === 0)
    // A write the next day seals the last day: only that day is clustered.
    ShardWriter.write(events(Days, 0), store.open("clustered"), WriteOptions(timeCol = Some("ingest")))
    val next = compact("clustered")
    assert((next.rounds, next.groupsMerged, next.batchesBefore, next.batchesAfter) === (1, 1, Days + 4, Days + 1))
    assert(store.open("clustered").state.batches.count(_.clusteredBy.nonEmpty) === Days)
    // cluster => true lays out every window again, and the open one (the new day's append) as it is now.
    val again = compact("clustered", recluster = true)
    assert((again.rounds, again.groupsMerged) === (1, Days + 1))
    assert(compact("clustered").rounds === 0)
  }

  test("ALTER TABLE CLUSTER BY changes the columns; the next compaction lays out every sealed window again") {
    sql("CREATE TABLE persist.altered (id BIGINT, country STRING, user_id INT) CLUSTER BY (country)")
    for (d <- 0 to 2) ShardWriter.write(events(d, 0).drop("amount"), store.open("altered"), WriteOptions(timeCol = Some("ingest")))
    def clusteredBy = store.open("altered").state.batches.map(_.clusteredBy)
    def property = sql("SHOW TBLPROPERTIES persist.altered").collect().map(r => r.getString(0) -> r.getString(1)).toMap
      .get(ClusterColumns.Property)
    assert(property === Some("country"))
    compact("altered")
    assert(clusteredBy === Seq(IndexedSeq(2), IndexedSeq(2), IndexedSeq()))
    sql("ALTER TABLE persist.altered CLUSTER BY (user_id, country)")
    assert(property === Some("country,user_id"))
    assert(compact("altered").groupsMerged === 2)
    assert(clusteredBy === Seq(IndexedSeq(2, 3), IndexedSeq(2, 3), IndexedSeq()))
    // The flags follow a rename and go with a drop.
    sql("ALTER TABLE persist.altered RENAME COLUMN country TO region")
    assert(property === Some("region,user_id"))
    sql("ALTER TABLE persist.altered DROP COLUMN user_id")
    assert(property === Some("region"))
    sql("ALTER TABLE persist.altered SET TBLPROPERTIES ('sparkpersist.clusterBy' = 'id')")
    assert(property === Some("id"))
    sql("ALTER TABLE persist.altered CLUSTER BY NONE")
    assert(property === None)
    assert(compact("altered").rounds === 0) // sealed clustered windows are not merged back by tiers
    assert(sql("SELECT count(*) FROM persist.altered").head().getLong(0) === 750L)
  }

  test("DataFrameWriterV2 clusterBy creates a clustered table; Delta's parse of ALTER TABLE CLUSTER BY is understood") {
    events(0, 0).drop("ingest").writeTo("persist.written").clusterBy("user_id", "country").create()
    assert(store.open("written").state.schema.clusteredIds === Seq(2, 3))
    assert(sql("SELECT count(*) FROM persist.written").head().getLong(0) === 250L)
    // Delta Lake's SQL extension parses ALTER TABLE ... CLUSTER BY into its own change: a case class of the columns.
    val schema = store.open("written").state.schema
    val altered = sparkpersist.catalog.TableChanges.applyAll(schema,
      Seq(ClusterBy(Seq(org.apache.spark.sql.connector.expressions.Expressions.column("amount")))), "test")
    assert(altered.clusteredIds === Seq(4))
  }

  test("auto: the columns the queries' filters read most parts for are chosen; a column time separates is not") {
    sql("CREATE TABLE persist.auto (id BIGINT, country STRING, user_id INT, amount DOUBLE, event_ts TIMESTAMP) " +
      "TBLPROPERTIES ('sparkpersist.clusterBy' = 'auto')")
    assert(sql("SHOW TBLPROPERTIES persist.auto").collect().map(r => r.getString(0) -> r.getString(1)).toMap
      .get(ClusterColumns.Property) === Some("auto"))
    for (d <- 0 until Days; a <- 0 until 4) {
      // event_ts lies in the append's own 5 hours: time separates it.
      val rows = events(d, a).withColumn("event_ts", timestamp_millis(col("ingest") - col("id") % 1000 * 1000))
      ShardWriter.write(rows, store.open("auto"), WriteOptions(timeCol = Some("ingest")))
    }
    val lastDay = java.time.Instant.ofEpochMilli((Days - 1) * Day)
    for (i <- 0 until 6) {
      sql(s"SELECT * FROM persist.auto WHERE country = '${Countries(i)}'").collect()
      sql(s"SELECT * FROM persist.auto WHERE user_id < ${100 * (i + 1)}").collect()
    }
    sql("SELECT * FROM persist.auto WHERE amount > 90").collect()
    for (_ <- 0 until 10) sql(s"SELECT * FROM persist.auto WHERE event_ts >= TIMESTAMP '$lastDay'").collect()

    val evidence = sql("CALL persist.system.clustering('auto')").collect().map(r =>
      r.getString(0) -> (r.getLong(1), r.getLong(3), r.getDouble(4), r.getBoolean(6), r.getString(7))).toMap
    assert(evidence.keySet === Set("country", "user_id", "amount", "event_ts"))
    assert(evidence("country") === ((6L, 96L, 1.0, true, "auto")))
    assert(evidence("user_id") === ((6L, 96L, 1.0, true, "auto")))
    assert(!evidence("amount")._4 && evidence("amount")._1 === 1L)
    assert(!evidence("event_ts")._4 && evidence("event_ts")._3 < 0.2, evidence("event_ts"))

    val dayBytes = store.open("auto").state.batches.take(4).map(_.bytes).sum
    withSQLConf(PersistConf.ClusterPartBytes.key -> (dayBytes / 8).toString) {
      assert(compact("auto").groupsMerged === Days - 1)
    }
    val state = store.open("auto").state
    assert(state.batches.map(_.clusteredBy).distinct.toSet === Set(IndexedSeq(2, 3), IndexedSeq.empty))
    // The evidence outlives the process: the compaction wrote this process's file.
    assert(new java.io.File(new java.io.File(root, "auto"), FilterWorkload.Dir).listFiles().count(_.getName.endsWith(".json")) === 1)
    // With auto, a window clustered by any columns is left alone, whatever the workload says next.
    for (_ <- 0 until 20) sql("SELECT * FROM persist.auto WHERE amount > 90").collect()
    assert(compact("auto").rounds === 0)
    assert(sql("SELECT count(*) FROM persist.auto WHERE country = 'DE'").head().getLong(0) ===
      (0 until Days).flatMap(d => (0 until 4).map(events(d, _))).reduce(_ union _).where("country = 'DE'").count())
  }

  test("a filter is evidence for the columns whose order decides it, not those read only through JSON, VARIANT, " +
    "a UDF or another function the interpreter cannot decide from bounds") {
    spark.udf.register("twice", (x: Double) => x * 2)
    sql("CREATE TABLE persist.evid (country STRING, amount DOUBLE, payload STRING, v VARIANT, ts TIMESTAMP)")
    def constrained(where: String): Seq[Set[String]] = {
      val execution = sql(s"SELECT * FROM persist.evid WHERE $where").queryExecution
      Seq(execution.analyzed, execution.optimizedPlan).map(plan =>
        ConstrainedColumns.of(plan.collectFirst { case f: org.apache.spark.sql.catalyst.plans.logical.Filter => f.condition }.get))
    }
    def both(columns: String*): Seq[Set[String]] = Seq.fill(2)(columns.toSet)
    assert(constrained("country = 'US' AND get_json_object(payload, '$.k') = '1'") === both("country"))
    assert(constrained("variant_get(v, '$.a', 'int') > 0 OR CAST(amount AS INT) > 1") === both("amount"))
    assert(constrained("twice(amount) > 3 AND from_json(payload, 'k INT').k = 1") === both())
    assert(constrained("payload LIKE '{%' AND amount + 1 > 2") === both("payload", "amount"))
    assert(constrained("get_json_object(payload, '$.kind') = 'x'") === both())
    assert(constrained("length(payload) > 3 OR hash(country) = 1 OR payload LIKE '%x'") === both())
    assert(constrained("date_trunc('DAY', ts) = TIMESTAMP'2026-01-01 00:00:00' AND CAST(amount AS BIGINT) * 2 > 4") ===
      both("ts", "amount"))
    assert(constrained("upper(country) IN ('US', 'DE') OR get_json_object(payload, '$.kind') = country") === both("country"))
    assert(constrained("substring(country, 1, 1) = 'U' AND substring(payload, 2, 1) = 'k'") === both("country"))
  }

  test("bad CLUSTER BY is refused, saying what to do") {
    def refused(ddl: String): String = intercept[Exception](sql(ddl)).getMessage
    assert(refused("CREATE TABLE persist.bad (a INT, b INT) CLUSTER BY (c)").contains("column c")) // Spark's own check
    assert(refused("CREATE TABLE persist.bad (a INT, m MAP<STRING, INT>) CLUSTER BY (m)")
      .contains("cannot cluster by 'm' (MAP<STRING, INT>)"))
    assert(refused("CREATE TABLE persist.bad (a INT, b INT, c INT, d INT, e INT) CLUSTER BY (a, b, c, d, e)")
      .contains("at most 4"))
    assert(refused("CREATE TABLE persist.bad (a INT, b INT) PARTITIONED BY (a)").contains("use CLUSTER BY (columns)"))
    assert(refused("CREATE TABLE persist.bad (a INT, b INT) CLUSTER BY (a) TBLPROPERTIES ('sparkpersist.clusterBy' = 'b')")
      .contains("both name clustering columns"))
    assert(!store.exists("bad"))
    sql("CREATE TABLE persist.typed (a INT, s STRING) CLUSTER BY (a)")
    assert(refused("ALTER TABLE persist.typed CLUSTER BY (s, nope)").contains("'nope', not column(s)"))
  }
}
