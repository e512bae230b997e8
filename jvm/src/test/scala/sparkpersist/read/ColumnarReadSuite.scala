package sparkpersist.read

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.functions.{col, lit, when}

import sparkpersist.scan.ScanReports
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.RunMeta
import sparkpersist.stats.ColumnStats
import sparkpersist.write.{ShardWriter, WriteOptions}
import sparkpersist.{PersistConf, PersistSparkSession}

/**
 * Columnar and row reads of the same parts agree on every type: a shard of every storable type
 * (nulls, NaN, -0.0, nested values, VARIANT), written once as a stamped append (time and diff
 * constant) and once as updates carrying their own time and diff.
 */
class ColumnarReadSuite extends PersistSparkSession {

  private val columns = Seq(
    "id AS id",
    "CASE WHEN id % 5 = 0 THEN NULL ELSE id % 2 = 0 END AS bool",
    "CAST(id % 100 AS TINYINT) AS byte", "CAST(id * 7 AS SMALLINT) AS short", "CAST(id * 13 AS INT) AS int",
    "CASE WHEN id % 7 = 0 THEN NULL ELSE id * 1000003 END AS long",
    "CAST(CASE id % 4 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0.0' ELSE id / 3 END AS FLOAT) AS float",
    "CASE id % 5 WHEN 0 THEN CAST('NaN' AS DOUBLE) WHEN 1 THEN -0.0D WHEN 2 THEN NULL ELSE id / 7D END AS double",
    "CAST(id / 9 AS DECIMAL(38, 10)) AS dec", "CAST(id % 1000 / 10 AS DECIMAL(5, 2)) AS small_dec",
    "CASE WHEN id % 6 = 0 THEN NULL ELSE concat('s', id, repeat('é', CAST(id % 3 AS INT))) END AS str",
    "CAST(concat('b', id) AS BINARY) AS bin", "date_add(DATE '1970-01-01', CAST(id AS INT)) AS date",
    "timestamp_micros(id * 1000003) AS ts", "CAST(timestamp_micros(id * 999) AS TIMESTAMP_NTZ) AS ntz",
    "named_struct('a', id, 'b', CASE WHEN id % 3 = 0 THEN NULL ELSE CAST(id AS STRING) END) AS st",
    "CASE WHEN id % 4 = 0 THEN NULL ELSE array(id / 2D, CAST(NULL AS DOUBLE), -0.0D) END AS arr",
    "map(concat('k', id % 3), id) AS map",
    "parse_json(CASE WHEN id % 3 = 0 THEN 'null' ELSE concat('{\"a\":', id, ',\"b\":[1,\"x\",2.5]}') END) AS var")

  private def rows(n: Int): DataFrame = spark.range(0, n, 1, 2).selectExpr(columns: _*)

  override def beforeAll(): Unit = {
    super.beforeAll()
    val data = rows(1)
    def create(name: String) = store.create(name, ShardSchema.fromStruct(data.schema, Seq("id")))
    ShardWriter.write(rows(3000), create("stamped"), WriteOptions())
    val updates = rows(3000).withColumn("t", col("id") % 3).withColumn("d", lit(1L))
    ShardWriter.write(updates, create("timed"), WriteOptions(Some("t"), Some("d")))
  }

  /** A value as it must come back, bit for bit. */
  private def exact(v: Any): Any = v match {
    case d: Double => ("double", java.lang.Double.doubleToLongBits(d))
    case f: Float => ("float", java.lang.Float.floatToIntBits(f))
    case b: Array[Byte] => ("binary", b.toSeq)
    case d: java.math.BigDecimal => ("decimal", d.toPlainString)
    case v: org.apache.spark.unsafe.types.VariantVal => ("variant", v.toString)
    case r: Row => r.toSeq.map(exact)
    case s: scala.collection.Seq[_] => s.map(exact)
    case m: scala.collection.Map[_, _] => m.map { case (k, x) => exact(k) -> exact(x) }
    case x => x
  }

  /** The rows of `query`, exactly, and whether its scan read columnar batches (AQE off: the plan is final). */
  private def read(query: String, columnar: Boolean, conf: (String, String)*): (Seq[Any], Boolean) = {
    var out: (Seq[Any], Boolean) = null
    // Aggregates read their parts here (not from statistics): the reads are what is compared.
    withSQLConf(conf ++ Seq(PersistConf.ColumnarReads.key -> columnar.toString, "spark.sql.adaptive.enabled" -> "false",
        PersistConf.StatsAggregates.key -> "false"): _*) {
      val frame = sql(query)
      val exec = frame.queryExecution.executedPlan.collectFirst { case b: BatchScanExec => b }.get
      out = (frame.collect().toSeq.map(r => exact(r)).sortBy(_.toString), exec.supportsColumnar)
    }
    out
  }

  private def agree(query: String, expectColumnar: Boolean, conf: (String, String)*): Seq[Any] = {
    val (batches, columnar) = read(query, columnar = true, conf: _*)
    val (rowByRow, rowsColumnar) = read(query, columnar = false, conf: _*)
    assert(columnar === expectColumnar, query)
    assert(!rowsColumnar)
    assert(batches === rowByRow, query)
    batches
  }

  test("snapshot and updates view of stamped and timed parts: columnar and row reads agree on every type") {
    for (table <- Seq("stamped", "timed")) {
      val all = agree(s"SELECT * FROM persist.$table", expectColumnar = true)
      assert(all.size === 3000)
      assert(agree(s"SELECT * FROM persist.$table.updates", expectColumnar = true).size === 3000)
      agree(s"SELECT var, st, id FROM persist.$table WHERE id % 11 = 3", expectColumnar = true)
      agree(s"SELECT count(*) FROM persist.$table", expectColumnar = true)
      agree(s"SELECT time, diff, str FROM persist.$table.updates WHERE bool", expectColumnar = true)
    }
    val snapshot = agree("SELECT * FROM persist.timed", expectColumnar = true)
    assert(snapshot === agree("SELECT * FROM persist.stamped", expectColumnar = true))
  }

  test("a read as of a time that hides some updates of a part reads rows, and the same rows") {
    val asOf = PersistConf.AsOf.key -> "1"
    val earlier = agree("SELECT id FROM persist.timed", expectColumnar = false, asOf)
    assert(earlier.size === 2000)
    assert(agree("SELECT id, time FROM persist.timed.updates", expectColumnar = false, asOf).size === 2000)
  }

  test("soft mode verifies the rows of a skipped part in columnar reads too") {
    val honest = store.open("stamped")
    val state = honest.state
    val liar = store.create("liar_columnar", state.schema)
    val conf = spark.sessionState.newHadoopConf()
    val fs = honest.partPath(state.parts.next()).getFileSystem(conf)
    state.parts.foreach(p => org.apache.hadoop.fs.FileUtil.copy(fs, honest.partPath(p), fs, liar.partPath(p), false, conf))
    val idId = state.schema.column("id").get.id
    val lie = state.parts.next()
    val batch = state.batches.head
    liar.log.compareAndAppend(0, batch.copy(runs = batch.runs.map(r => RunMeta(r.parts.map(p =>
      if (p eq lie) p.copy(stats = p.stats.map(s => s.copy(columns = s.columns + (idId -> ColumnStats(0, Some(-2L), Some(-1L))))))
      else p)))))
    val query = "SELECT id FROM persist.liar_columnar WHERE id >= 0"
    val (rows, columnar) = read(query, columnar = true, PersistConf.PushdownMode.key -> "soft")
    assert(columnar && rows.size === 3000)
    assert(ScanReports.last(spark).map(_.softViolations.map(_.sum)) === Seq(Some(lie.rowCount)))
    val e = intercept[Exception](read(query, columnar = true, PersistConf.PushdownMode.key -> "soft",
      PersistConf.SoftFailOnViolation.key -> "true"))
    assert(e.getMessage.contains("Soft pushdown violation in shard 'liar_columnar'"), e.getMessage)
  }

  test("a snapshot with few retractions (UPDATE, DELETE) reads columnar batches: the rows of row reads and of plain Spark") {
    val shard = store.create("changed", ShardSchema.fromStruct(rows(1).schema, Seq("id")))
    ShardWriter.write(rows(3000), shard, WriteOptions(maxRowsPerPart = Some(500)))
    ShardWriter.write(rows(20), shard, WriteOptions()) // ids 0 to 19 held twice
    sql("UPDATE persist.changed SET int = int + 1 WHERE id % 97 = 3")
    sql("DELETE FROM persist.changed WHERE id % 89 = 5")
    rows(3000).union(rows(20))
      .withColumn("int", when(col("id") % 97 === 3, col("int") + 1).otherwise(col("int")))
      .where(!(col("id") % 89 === 5))
      .createOrReplaceTempView("changed_plain")
    def plain(query: String): Seq[Any] = sql(query).collect().toSeq.map(r => exact(r)).sortBy(_.toString)
    // By position (the statements recorded the rows they retract) and by value (cancelled in memory).
    for (positional <- Seq("true", "false")) {
      val by = PersistConf.PositionalReads.key -> positional
      val snapshot = agree("SELECT * FROM persist.changed", expectColumnar = true, by)
      assert(snapshot.size === 3020 - 34 - 1)
      assert(snapshot === plain("SELECT * FROM changed_plain"))
      // What a row-level operation reads: every row once, numbered, with its values as a struct.
      val (identified, identifiesColumnar) = read("SELECT _persist_row_id, _persist_row FROM persist.changed", columnar = true, by)
      assert(identifiesColumnar)
      assert(identified.map { case Seq(id, _) => id }.distinct.size === snapshot.size)
      assert(identified.map { case Seq(_, row) => row }.sortBy(_.toString) === snapshot)
      // Read by position, each row names the stored row it was read from (copies of a row held
      // twice are two stored rows); consolidated by value, none does.
      val sources = read("SELECT _persist_row_source FROM persist.changed", columnar = true, by)._1.map { case Seq(s) => s }
      if (positional == "true") assert(!sources.contains(null) && sources.distinct.size === snapshot.size)
      else assert(sources.forall(_ == null) && sources.size === snapshot.size)
      val filtered = "SELECT var, st, map, id FROM {t} WHERE id % 11 = 3 AND id < 1500"
      for (mode <- Seq("on", "soft", "off")) {
        assert(agree(filtered.replace("{t}", "persist.changed"), expectColumnar = true, by, PersistConf.PushdownMode.key -> mode,
          PersistConf.SoftFailOnViolation.key -> "true") === plain(filtered.replace("{t}", "changed_plain")), mode)
      }
      assert(ScanReports.last(spark).head.metrics.partsPruned === 0, "off")
      // A join's runtime filter narrows the parts: the tasks planned before it keep their shares.
      spark.range(100).selectExpr("id * 30 AS k", "concat('n', id) AS name").createOrReplaceTempView("changed_keys")
      val join = "SELECT c.id, c.int, c.str FROM {t} c JOIN changed_keys k ON c.id = k.k WHERE k.name IN ('n5', 'n64', 'n99')"
      val dynamic = Seq("spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly" -> "false")
      assert(agree(join.replace("{t}", "persist.changed"), expectColumnar = true, by +: dynamic: _*) === plain(join.replace("{t}", "changed_plain")))
      assert(ScanReports.last(spark).head.metrics.partsRuntimePruned > 0)
    }
    // Too many retracting rows for a task to hold in memory: merged, row by row.
    assert(agree("SELECT * FROM persist.changed", expectColumnar = false, PersistConf.CancelInMemoryRows.key -> "10",
      PersistConf.PositionalReads.key -> "false") === plain("SELECT * FROM changed_plain"))
  }
}
