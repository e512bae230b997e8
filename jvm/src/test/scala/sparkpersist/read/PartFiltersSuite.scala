package sparkpersist.read

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.functions.{col, lit}

import sparkpersist.scan.{PersistScan, ScanMetrics}
import sparkpersist.write.PartWriteSettings
import sparkpersist.write.{ShardWriter, WriteOptions}
import sparkpersist.{PersistConf, PersistSparkSession}

/**
 * Filters handed to Parquet inside parts: a shard of two parts of 20 000 rows each, written in
 * small row groups (`parquet.block.size` 16 KB), ordered by `id`.
 */
class PartFiltersSuite extends PersistSparkSession {

  override def beforeAll(): Unit = {
    super.beforeAll()
    writePoints("points")
  }

  private def writePoints(table: String): Unit = {
    sql(s"CREATE TABLE persist.$table (id BIGINT, name STRING) TBLPROPERTIES (order_by = 'id')")
    withSQLConf("parquet.block.size" -> "16384") {
      val rows = spark.range(0, 40000, 1, 2).select(col("id"), col("id").cast("string").as("name"))
      ShardWriter.write(rows, store.open(table), WriteOptions(maxRowsPerPart = Some(20000)))
    }
    assert(store.open(table).state.partCount === 2)
  }

  /** The rows of `query` and the row groups its scan opened and read (AQE off: the plan is final). */
  private def run(query: String, conf: (String, String)*): (Seq[String], Long, Long, PersistScan) = {
    var out: (Seq[String], Long, Long, PersistScan) = null
    withSQLConf(conf :+ ("spark.sql.adaptive.enabled" -> "false"): _*) {
      val frame: DataFrame = sql(query)
      val rows = frame.collect().map(_.toString).toSeq.sorted
      val exec = frame.queryExecution.executedPlan.collectFirst { case b: BatchScanExec => b }.get
      out = (rows, exec.metrics(ScanMetrics.RowGroupsTotal).value, exec.metrics(ScanMetrics.RowGroupsRead).value,
        exec.scan.asInstanceOf[PersistScan])
    }
    out
  }

  test("a point lookup reads fewer row groups with the filter handed to Parquet, and the same rows") {
    val query = "SELECT * FROM persist.points WHERE id = 12345"
    val (rows, total, read, scan) = run(query)
    val (plainRows, plainTotal, plainRead, _) = run(query, "spark.sql.parquet.filterPushdown" -> "false")
    assert(rows === Seq("[12345,12345]") && plainRows === rows)
    assert(total > 4, "the part was not written in several row groups")
    assert(total === plainTotal && plainRead === plainTotal)
    assert(read === 1, s"read $read of $total row groups")
    assert(scan.filters.map(_.toString) === Seq("IsNotNull(id)", "EqualTo(id,12345)"))
    assert(scan.description().contains("parquet filters: [IsNotNull(id), EqualTo(id,12345)]"))
    // Every predicate stays a post-scan filter: Spark re-checks the rows Parquet returns.
    assert(sql(query).queryExecution.executedPlan.toString.contains("Filter"))
  }

  test("an OR with an operand Parquet cannot take is not pushed at all: no row group where only that operand holds is skipped") {
    // Spark's own conversion would hand Parquet `EqualTo(id,30000)` alone, skipping id 7's row group.
    val query = "SELECT id FROM persist.points WHERE id * 2 = 14 OR id = 30000"
    val (rows, total, read, scan) = run(query)
    assert(rows === Seq("[30000]", "[7]"))
    assert(scan.filters.isEmpty && read === total)
    // Operands of AND, NOT and OR that all have filters are pushed as one.
    val (bothRows, _, bothRead, bothScan) = run("SELECT id FROM persist.points WHERE NOT (id > 7 AND name = '7') AND (id = 7 OR id = 8)")
    assert(bothRows === Seq("[7]", "[8]") && bothRead === 1)
    assert(bothScan.filters.map(_.toString).contains("Or(EqualTo(id,7),EqualTo(id,8))"), bothScan.filters)
  }

  test("predicates Parquet cannot take are not pushed, and results never change") {
    for (query <- Seq(
      "SELECT id FROM persist.points WHERE id + 1 = 12346",
      "SELECT id FROM persist.points WHERE name LIKE '1234%' AND id < 20000",
      "SELECT id FROM persist.points WHERE id IN (1, 39999) OR name = '777'",
      "SELECT id FROM persist.points WHERE NOT (id >= 5)")) {
      val (rows, _, _, _) = run(query)
      val (plain, _, _, _) = run(query, "spark.sql.parquet.filterPushdown" -> "false")
      assert(rows === plain, query)
    }
    assert(run("SELECT id FROM persist.points WHERE id + 1 = 12346")._4.filters.map(_.toString) === Seq("IsNotNull(id)"))
  }

  test("a BINARY IN list holding NULL stays a post-scan filter: Spark cannot print it, and the query runs") {
    // Found by the round-trip soak (seed 1, shard 755): Spark 4.1 fails an assertion printing a
    // pushed BINARY null literal, so accepting the predicate failed the whole query, in every mode.
    sql("CREATE TABLE persist.blobs (b BINARY, n INT)")
    sql("INSERT INTO persist.blobs VALUES (X'01', 1), (X'0ECE', 2), (NULL, 3)")
    Seq("on", "soft", "off").foreach { mode =>
      withSQLConf(PersistConf.PushdownMode.key -> mode, PersistConf.SoftFailOnViolation.key -> "true") {
        assert(sql("SELECT n FROM persist.blobs WHERE b IN (X'0ECE', NULL)").collect().map(_.getInt(0)).toSeq === Seq(2))
        assert(sql("SELECT n FROM persist.blobs WHERE b IN (X'01', X'02')").collect().map(_.getInt(0)).toSeq === Seq(1))
      }
    }
  }

  test("floating-point predicates stay out of Parquet: -0.0 equals 0.0 and NaN is above every number") {
    // Found by the round-trip soak (seed 1, shard 130): `x1 IN (Infinity, -0.0, ...)` lost the rows
    // holding 0.0 in every pushdown mode: Parquet's dictionary of the row group held 0.0, not -0.0.
    sql("CREATE TABLE persist.zeros (x DOUBLE, f FLOAT, n BIGINT)")
    ShardWriter.write(sql("SELECT * FROM VALUES (0.0D, 0.0F, 1L), (0.0D, 0.0F, 2L), (1.5D, 1.5F, 3L), " +
      "(CAST('NaN' AS DOUBLE), CAST('NaN' AS FLOAT), 4L) AS t(x, f, n)").coalesce(1), store.open("zeros"), WriteOptions())
    for ((predicate, expected) <- Seq(
        "x IN (CAST('Infinity' AS DOUBLE), -0.0D)" -> "1,2", "x = -0.0D" -> "1,2", "x = 0.0D" -> "1,2",
        "x <= -0.0D" -> "1,2", "x >= 0.0D" -> "1,2,3,4", "x > 1e300D" -> "4", "f IN (CAST(-0.0 AS FLOAT))" -> "1,2",
        "x = CAST('NaN' AS DOUBLE)" -> "4")) {
      val query = s"SELECT n FROM persist.zeros WHERE $predicate ORDER BY n"
      val (rows, _, _, scan) = run(query)
      assert(rows.map(_.stripPrefix("[").stripSuffix("]")).sorted.mkString(",") === expected, predicate)
      assert(scan.filters.forall(f => !f.references.exists(Set("x", "f"))), s"$predicate: ${scan.filters}")
    }
  }

  test("a time inside the Julian-Gregorian gap and a string of invalid UTF-8 find the rows a plain Parquet copy gives") {
    // Found comparing with a plain Parquet copy (issue 48): TIMESTAMP'1582-10-10 00:00:00' reached
    // Parquet as a java.sql.Timestamp days later, and the bytes FF 41 as U+FFFD 'A': the row groups
    // holding the rows were skipped in every pushdown mode. One part, whose stats admit both
    // literals (it gets the filters), of one row group per row.
    sql("CREATE TABLE persist.edges (t TIMESTAMP, s STRING, n INT)")
    withSQLConf("parquet.block.row.count.limit" -> "1") {
      ShardWriter.write(sql("SELECT * FROM VALUES (TIMESTAMP'1582-10-10 00:00:00', 'a', 1), " +
        "(TIMESTAMP'2024-01-01 00:00:00', CAST(unhex('FF41') AS STRING), 2), " +
        "(TIMESTAMP'2024-01-02 00:00:00', 'b', 3) AS v(t, s, n)").coalesce(1), store.open("edges"), WriteOptions())
    }
    val copy = new java.io.File(root, "edges-copy").getPath
    withSQLConf(PartWriteSettings.ExactValueSettings.toSeq: _*)(spark.table("persist.edges").write.parquet(copy))
    val (time, string) = ("t = TIMESTAMP'1582-10-10 00:00:00'", "s = CAST(unhex('FF41') AS STRING)")
    val disagreements = Seq(time, string).flatMap { predicate =>
      val plain = withSQLConf("spark.sql.parquet.filterPushdown" -> "false") {
        spark.read.parquet(copy).where(predicate).select("n").collect().map(_.toString).toSeq
      }
      assert(plain.size === 1, predicate)
      val persisted = inEveryMode(s"SELECT n FROM persist.edges WHERE $predicate")._1
      if (persisted == plain) None else Some(s"$predicate: $persisted, plain Parquet $plain")
    }
    assert(disagreements.isEmpty)
    // The time reaches Parquet as it is, and skips the other rows' row groups; the string stays out.
    val (_, total, read, timeScan) = run(s"SELECT n FROM persist.edges WHERE $time")
    assert(timeScan.filters.exists(_.references.contains("t")) && (total, read) === (3, 1), timeScan.filters)
    assert(run(s"SELECT n FROM persist.edges WHERE $string")._4.filters.map(_.toString) === Seq("IsNotNull(s)"))
  }

  test("in soft mode a part read only to be verified gets no filter: all its row groups are read") {
    val query = "SELECT * FROM persist.points WHERE id = 5"
    val soft = Seq(PersistConf.PushdownMode.key -> "soft", PersistConf.SoftFailOnViolation.key -> "true")
    val (onRows, onTotal, onRead, onScan) = run(query, PersistConf.PushdownMode.key -> "on")
    val (softRows, softTotal, softRead, _) = run(query, soft: _*)
    assert(onScan.parts.size === 1 && onRows === Seq("[5,5]") && softRows === onRows)
    assert(onRead === 1)
    // The second part, ruled out, is read whole to be verified.
    assert(softRead === onRead + (softTotal - onTotal))
  }

  test("consolidation tasks hand Parquet their key range: fewer row groups, the same rows") {
    writePoints("retracted")
    val shard = store.open("retracted")
    val retract = spark.range(0, 40000, 7, 1).select(col("id"), col("id").cast("string").as("name"),
      lit(shard.state.upper).as("t"), lit(-1L).as("d"))
    withSQLConf("parquet.block.size" -> "16384") {
      ShardWriter.write(retract, shard, WriteOptions(Some("t"), Some("d")))
    }
    val query = "SELECT count(*), sum(id) FROM persist.retracted"
    val (one, oneTotal, oneRead, _) = run(query, PersistConf.ConsolidationTasks.key -> "1")
    val (four, fourTotal, fourRead, scan) = run(query, PersistConf.ConsolidationTasks.key -> "4")
    assert(one === four && one === Seq(s"[${40000 - 5715},${(0L until 40000).filterNot(_ % 7 == 0).sum}]"))
    assert(scan.consolidation.get.tasks.size === 4)
    assert(oneRead === oneTotal)
    // Tasks open the parts spanning their range; at most the row groups across the 3 split
    // points of each of the 3 parts are read twice.
    assert(fourTotal > oneTotal && fourRead <= oneTotal + 9, s"$fourRead of $fourTotal ($oneTotal in one task)")
  }
}
