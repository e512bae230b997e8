package sparkpersist.scan

import java.nio.file.Files
import java.time.{Instant, LocalDate, LocalDateTime}

import org.apache.spark.SparkConf
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, GreaterThanOrEqual, Literal}
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.test.SharedSparkSession
import org.apache.spark.sql.types._

import sparkpersist.PersistConf
import sparkpersist.catalog.{PersistCatalog, PersistTable, PersistTableId}
import sparkpersist.plan.{InvalidAsOf, ReadMode, ScanRequest}
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{ShardHandle, ShardStore}
import sparkpersist.write.{ShardWriter, WriteOptions}

/** Reads of shards written by the sparkpersist writer, through the catalog. */
class PersistReadSuite extends SharedSparkSession {

  private lazy val root = Files.createTempDirectory("persist-read").toFile

  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.catalog.persist", classOf[PersistCatalog].getName)
    .set("spark.sql.catalog.persist.root", root.toURI.toString)
    .set("spark.sql.datetime.java8API.enabled", "true")

  private def store = new ShardStore(root.toURI.toString, spark.sessionState.newHadoopConf())

  private def withShard(name: String, schema: StructType, orderBy: Seq[String] = Nil)(body: ShardHandle => Unit): Unit = {
    val shard = store.create(name, ShardSchema.fromStruct(schema, orderBy))
    try body(shard) finally store.drop(name)
  }

  private def df(schema: StructType, rows: Seq[Row], partitions: Int = 1): DataFrame =
    spark.createDataFrame(spark.sparkContext.parallelize(rows, partitions), schema)

  /** A value as it must come back, bit for bit: -0.0 is not 0.0, bytes compare by content. */
  private def exact(v: Any): Any = v match {
    case d: Double => ("double", java.lang.Double.doubleToLongBits(d))
    case f: Float => ("float", java.lang.Float.floatToIntBits(f))
    case b: Array[Byte] => ("binary", b.toSeq)
    case d: java.math.BigDecimal => ("decimal", d.toPlainString)
    case r: Row => r.toSeq.map(exact)
    case s: scala.collection.Seq[_] => s.map(exact)
    case m: scala.collection.Map[_, _] => m.map { case (k, x) => exact(k) -> exact(x) }
    case x => x
  }

  private def exactRows(rows: Seq[Row]): Seq[Any] = rows.map(exact)

  private def scanOf(frame: DataFrame): PersistScan =
    frame.queryExecution.executedPlan.collectFirst { case b: BatchScanExec => b.scan }.get.asInstanceOf[PersistScan]

  private val every = StructType(Seq(
    StructField("id", IntegerType, nullable = false),
    StructField("bool", BooleanType), StructField("byte", ByteType), StructField("short", ShortType),
    StructField("int", IntegerType), StructField("long", LongType), StructField("float", FloatType),
    StructField("double", DoubleType), StructField("dec", DecimalType(38, 10)), StructField("small_dec", DecimalType(5, 2)),
    StructField("str", StringType), StructField("bin", BinaryType), StructField("date", DateType),
    StructField("ts", TimestampType), StructField("ntz", TimestampNTZType),
    StructField("st", StructType(Seq(StructField("a", IntegerType), StructField("b", StringType)))),
    StructField("arr", ArrayType(DoubleType)), StructField("map", MapType(StringType, LongType))))

  private val everyRows = Seq(
    Row(1, true, Byte.MinValue, Short.MinValue, Int.MinValue, Long.MinValue, Float.NaN, -0.0,
      new java.math.BigDecimal("-9999999999999999999999999999.9999999999"), new java.math.BigDecimal("-999.99"),
      "", Array.emptyByteArray, LocalDate.of(1000, 1, 1), Instant.parse("1900-01-01T00:00:00.000001Z"),
      LocalDateTime.of(1, 1, 1, 0, 0), Row(null, null), Seq.empty[Double], Map.empty[String, Long]),
    Row(2, false, Byte.MaxValue, Short.MaxValue, Int.MaxValue, Long.MaxValue, -0.0f, Double.NaN,
      new java.math.BigDecimal("0.0000000001"), new java.math.BigDecimal("0.00"),
      "日本語 ünïcødé 🚀", Array[Byte](0, -1, 127, -128), LocalDate.of(9999, 12, 31),
      Instant.parse("2262-04-11T23:47:16.854775Z"), LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999999000),
      Row(7, "x"), Seq(1.5, Double.NaN, -0.0), Map("k" -> 1L, "é" -> -1L)),
    Row(3, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null),
    Row(4, true, 0.toByte, 0.toShort, 0, 0L, Float.PositiveInfinity, Double.NegativeInfinity,
      new java.math.BigDecimal("1.5000000000"), new java.math.BigDecimal("1.50"), "x" * 20000,
      Array.fill[Byte](3000)(7), LocalDate.of(1970, 1, 1), Instant.parse("1970-01-01T00:00:00Z"),
      LocalDateTime.of(2024, 2, 29, 12, 30, 15, 123456000), Row(null, "only b"), Seq[Any](null, 0.0).asInstanceOf[Seq[Double]],
      Map("null" -> null).asInstanceOf[Map[String, Long]]))

  test("every supported type round-trips exactly through write and snapshot read") {
    withShard("types", every) { shard =>
      ShardWriter.write(df(every, everyRows, partitions = 2), shard, WriteOptions())
      val back = spark.table("persist.types").collect().sortBy(_.getInt(0)).toSeq
      assert(exactRows(back) === exactRows(everyRows))
      val projected = sql("SELECT str, id FROM persist.types WHERE id >= 2 ORDER BY id").collect().toSeq
      assert(projected.map(r => (r.getString(0), r.getInt(1))) ===
        Seq(("日本語 ünïcødé 🚀", 2), (null, 3), ("x" * 20000, 4)))
      assert(spark.table("persist.types").count() === 4)
      assert(scanOf(spark.table("persist.types")).mode === ReadMode.Snapshot)
    }
  }

  test("queries on struct fields read the struct whole, in both snapshot modes") {
    val nested = StructType(Seq(StructField("id", IntegerType),
      StructField("st", StructType(Seq(StructField("a", IntegerType), StructField("b", StringType))))))
    withShard("nested", nested, orderBy = Seq("id")) { shard =>
      ShardWriter.write(df(nested, Seq(Row(1, Row(10, "x")), Row(2, Row(20, "y")))), shard, WriteOptions())
      def fields = sql("SELECT st.b, st.a FROM persist.nested ORDER BY st.a").collect().toSeq
      assert(fields === Seq(Row("x", 10), Row("y", 20)))
      assert(scanOf(sql("SELECT st.b FROM persist.nested")).readSchema === StructType(Seq(nested(1))))
      val retract = StructType(nested.fields ++ Seq(StructField("t", LongType), StructField("d", LongType)))
      ShardWriter.write(df(retract, Seq(Row(1, Row(10, "x"), shard.state.upper, -1L))), shard,
        WriteOptions(Some("t"), Some("d")))
      assert(scanOf(sql("SELECT st.b FROM persist.nested")).mode === ReadMode.ConsolidatedSnapshot)
      assert(fields === Seq(Row("y", 20)))
    }
  }

  private val kv = StructType(Seq(StructField("k", StringType), StructField("v", IntegerType),
    StructField("t", LongType, nullable = false), StructField("d", LongType, nullable = false)))
  private val kvData = StructType(kv.take(2))

  private def writeUpdates(shard: ShardHandle, updates: Seq[Row]): Unit =
    ShardWriter.write(df(kv, updates, partitions = 2), shard, WriteOptions(Some("t"), Some("d")))

  /** `f` evaluated with the session's as-of set to `t`. */
  private def asOf[T](t: Long)(f: => T): T = {
    var out: Option[T] = None
    withSQLConf(PersistConf.AsOf.key -> t.toString) { out = Some(f) }
    out.get
  }

  private def snapshot(time: Option[Long]): Seq[(String, Int)] = {
    def read = sql("SELECT k, v FROM persist.kv").collect().toSeq
      .map(r => (r.getString(0), r.getInt(1))).sortBy(r => (Option(r._1), r._2))
    time.fold(read)(asOf(_)(read))
  }

  test("SQL CREATE, INSERT, SELECT and DROP round-trip; each INSERT is one batch") {
    sql("CREATE TABLE persist.events (id BIGINT, name STRING) TBLPROPERTIES (order_by = 'id')")
    try {
      sql("INSERT INTO persist.events VALUES (2, 'b'), (1, 'a')")
      sql("INSERT INTO persist.events SELECT id + 10, upper(name) FROM persist.events")
      assert(sql("SELECT * FROM persist.events ORDER BY id").collect().toSeq ===
        Seq(Row(1L, "a"), Row(2L, "b"), Row(11L, "A"), Row(12L, "B")))
      assert(sql("SELECT DISTINCT time FROM persist.events.updates").count() === 2)
      assert(sql("SELECT sum(diff) FROM persist.events.updates").collect().head.getLong(0) === 4)
    } finally sql("DROP TABLE persist.events")
    assert(!store.exists("events"))
  }

  test("snapshots as of several times see exactly the updates up to that time") {
    withShard("kv", kv.copy(fields = Array(kv(0), kv(1))), orderBy = Seq("k")) { shard =>
      writeUpdates(shard, Seq(Row("a", 1, 10L, 1L), Row("b", 2, 11L, 1L), Row("c", 3, 12L, 1L)))
      writeUpdates(shard, Seq(Row("a", 1, 20L, -1L), Row("b", 2, 20L, 2L), Row(null, 4, 21L, 1L)))
      assert(snapshot(None) === Seq((null, 4), ("b", 2), ("b", 2), ("b", 2), ("c", 3)))
      assert(snapshot(Some(10)) === Seq(("a", 1)))
      assert(snapshot(Some(12)) === Seq(("a", 1), ("b", 2), ("c", 3)))
      assert(snapshot(Some(19)) === Seq(("a", 1), ("b", 2), ("c", 3)))
      assert(snapshot(Some(20)) === Seq(("b", 2), ("b", 2), ("b", 2), ("c", 3)))
      assert(snapshot(Some(0)) === Nil)
      val scan = scanOf(sql("SELECT * FROM persist.kv"))
      assert(scan.mode === ReadMode.ConsolidatedSnapshot)
      assert(scan.plan.asOf === Some(21L))
      asOf(10) {
        val early = scanOf(sql("SELECT * FROM persist.kv"))
        assert(early.parts.forall(_.minTime <= 10) && early.parts.nonEmpty)
        assert(early.metrics.partsTotal === shard.state.partCount)
        assert(early.metrics.partsKept === early.parts.size)
        assert(early.metrics.partsKept < early.metrics.partsTotal)
      }
    }
  }

  test("consolidation with retractions, net zero and multiplicity 3 matches brute force") {
    withShard("kv", kvData, orderBy = Seq("k")) { shard =>
      val rnd = new scala.util.Random(7)
      val counts = scala.collection.mutable.Map.empty[(String, Int), Long].withDefaultValue(0L)
      val batches = (0 until 4).map { b =>
        (0 until 40).map { i =>
          val row = (Seq(null, "a", "b", "é")(rnd.nextInt(4)), rnd.nextInt(3))
          val diff = if (counts(row) > 0 && rnd.nextBoolean()) -(1 + rnd.nextInt(counts(row).toInt)).toLong
            else (1 + rnd.nextInt(3)).toLong
          counts(row) += diff
          Row(row._1, row._2, b * 100L + i / 10, diff)
        }
      }
      batches.foreach(writeUpdates(shard, _))
      val all = batches.flatten
      for (asOf <- Seq(0L, 15L, 120L, 303L)) {
        val expected = all.filter(_.getLong(2) <= asOf).groupBy(r => (r.getString(0), r.getInt(1)))
          .toSeq.flatMap { case (row, us) => Seq.fill(us.map(_.getLong(3)).sum.toInt)(row) }
          .sortBy(r => (Option(r._1), r._2))
        assert(snapshot(Some(asOf)) === expected, s"as of $asOf")
      }
      assert(counts.values.exists(_ == 0) && counts.values.exists(_ >= 3))
    }
  }

  test("a scan request's filter narrows the scan's parts, its rows and its metrics") {
    withShard("kv", kvData) { shard =>
      writeUpdates(shard, Seq(Row("a", 1, 1L, 1L)))
      writeUpdates(shard, Seq(Row("b", 2, 5L, 1L), Row("c", 3, 6L, 1L)))
      val all = shard.state.parts.toSeq
      val late = all.filter(_.minTime >= 5)
      val vAtLeast2 = GreaterThanOrEqual(AttributeReference(kvData(1).name, IntegerType)(), Literal(2))
      val table = spark.sessionState.catalogManager.catalog("persist").asInstanceOf[PersistCatalog]
        .loadTable(PersistTableId.snapshotIdentifier(Nil, "kv")).asInstanceOf[PersistTable]
        .withRequest(ScanRequest(None, Some(vAtLeast2)))
      val scan = table.newScanBuilder(org.apache.spark.sql.util.CaseInsensitiveStringMap.empty())
        .build().asInstanceOf[PersistScan]
      assert(scan.parts === late)
      assert(scan.metrics === ScanMetrics(all.size, late.size, all.map(_.bytes).sum, late.map(_.bytes).sum,
        partsPruned = all.size - late.size, pruningNanos = scan.metrics.pruningNanos,
        partsProvenTrue = late.size)) // v >= 2 holds on every row of each late part
      val factory = scan.createReaderFactory()
      val rows = scan.planInputPartitions().toSeq.flatMap { p =>
        val reader = factory.createReader(p)
        val out = Iterator.continually(reader).takeWhile(_.next()).map(_.get().getString(0)).toList
        reader.close()
        out
      }
      assert(rows.sorted === Seq("b", "c"))
      assert(scan.description().contains(s"parts: ${late.size}/${all.size} " +
        s"bytes: ${late.map(_.bytes).sum}/${all.map(_.bytes).sum} proven true: ${late.size} pushdown=on filter: "))
      val frame = sql("SELECT * FROM persist.kv")
      frame.collect()
      val exec = frame.queryExecution.executedPlan.collectFirst { case b: BatchScanExec => b }.get
      assert(exec.metrics(ScanMetrics.PartsKept).value === all.size)
      assert(exec.metrics(ScanMetrics.BytesTotal).value === all.map(_.bytes).sum)
    }
  }

  test("inserts only take the fast path; a diff other than +1 switches to consolidation") {
    withShard("kv", kvData) { shard =>
      writeUpdates(shard, Seq(Row("a", 1, 1L, 1L), Row("a", 1, 2L, 1L), Row("b", 2, 1L, 1L)))
      assert(snapshot(None) === Seq(("a", 1), ("a", 1), ("b", 2)))
      assert(scanOf(sql("SELECT * FROM persist.kv")).mode === ReadMode.Snapshot)
      assert(sql("SELECT count(*) FROM persist.kv").collect().head.getLong(0) === 3)
      writeUpdates(shard, Seq(Row("c", 3, 5L, 3L)))
      assert(snapshot(None) === Seq(("a", 1), ("a", 1), ("b", 2), ("c", 3), ("c", 3), ("c", 3)))
      assert(scanOf(sql("SELECT * FROM persist.kv")).mode === ReadMode.ConsolidatedSnapshot)
    }
  }

  test("the updates view returns raw (data, time, diff) up to the as-of") {
    withShard("kv", kvData, orderBy = Seq("k")) { shard =>
      writeUpdates(shard, Seq(Row("a", 1, 5L, 1L), Row("a", 1, 6L, -1L), Row("b", 2, 6L, 2L)))
      val updates = sql("SELECT * FROM persist.kv.updates").collect().toSeq.sortBy(r => (r.getString(0), r.getLong(2)))
      assert(updates === Seq(Row("a", 1, 5L, 1L), Row("a", 1, 6L, -1L), Row("b", 2, 6L, 2L)))
      assert(sql("SELECT diff, k FROM persist.kv.updates WHERE time = 6 ORDER BY k").collect().toSeq ===
        Seq(Row(-1L, "a"), Row(2L, "b")))
      assert(asOf(5)(sql("SELECT * FROM persist.kv.updates").collect().toSeq) === Seq(Row("a", 1, 5L, 1L)))
      assert(snapshot(None) === Seq(("b", 2), ("b", 2)))
    }
  }

  test("the parts table lists every part with its size, times and column statistics") {
    withShard("kv", kvData, orderBy = Seq("k")) { shard =>
      writeUpdates(shard, Seq(Row("a", 1, 5L, 1L), Row("c", 3, 6L, 1L), Row(null, 2, 7L, 1L)))
      val state = shard.state
      val parts = sql("SELECT * FROM persist.kv.parts").collect().toSeq
      assert(parts.size === state.partCount)
      assert(parts.map(_.getAs[Long]("row_count")).sum === 3)
      assert(parts.map(_.getAs[String]("key")).toSet === state.parts.map(_.key).toSet)
      assert(parts.map(_.getAs[String]("batch_id")).toSet === Set(state.batches.head.id))
      assert(parts.map(_.getAs[Long]("bytes")).sum === state.parts.map(_.bytes).sum)
      val stats = sql("SELECT s.column, s.null_count, s.lower, s.upper FROM persist.kv.parts " +
        "LATERAL VIEW explode(column_stats) AS s").collect().toSeq
      val k = stats.filter(_.getString(0) == "k")
      assert(k.map(_.getLong(1)).sum === 1)
      assert(k.flatMap(r => Option(r.getString(2))).min === "a")
      assert(k.flatMap(r => Option(r.getString(3))).max === "c")
      val v = stats.filter(_.getString(0) == "v")
      assert(v.map(_.getString(2).toInt).min === 1 && v.map(_.getString(3).toInt).max === 3)
    }
  }

  test("as-of outside [since, upper) is an error naming shard, time, since and upper") {
    withShard("kv", kvData) { shard =>
      writeUpdates(shard, Seq(Row("a", 1, 10L, 1L)))
      shard.log.downgradeSince(5)
      def failure(t: Long): String =
        asOf(t)(intercept[InvalidAsOf](sql("SELECT * FROM persist.kv").collect()).getMessage)
      assert(failure(11) === "[PERSIST_INVALID_AS_OF.TIME] Cannot read shard 'kv' as of 11: only times before upper = 11 are complete " +
        s"(since = 5, upper = 11). Set ${PersistConf.AsOf.key} to a time in [5, 10], or unset it to read the latest. SQLSTATE: 22023")
      assert(failure(4) === "[PERSIST_INVALID_AS_OF.TIME] Cannot read shard 'kv' as of 4: history before since = 5 has been compacted " +
        s"(since = 5, upper = 11). Set ${PersistConf.AsOf.key} to a time in [5, 10], or unset it to read the latest. SQLSTATE: 22023")
      assert(snapshot(Some(5)) === Nil)
      assert(snapshot(None) === Seq(("a", 1)))
    }
  }
}
