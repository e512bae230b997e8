package sparkpersist.write

import java.io.File
import java.nio.file.Files

import org.apache.hadoop.fs.Path
import org.apache.spark.SparkThrowable
import org.apache.spark.sql.{DataFrame, QueryTest, Row}
import org.apache.spark.sql.functions.{col, lit}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.test.SharedSparkSession
import org.apache.spark.sql.types._

import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{BatchMeta, PartFormat, ShardHandle, ShardStore, UpperMismatch}
import sparkpersist.stats.ColumnStats

/** ShardWriter end to end: parts, runs and the committed batch; every refusal leaves no trace. */
class ShardWriterSuite extends QueryTest with SharedSparkSession {
  import testImplicits._

  private val dataSchema = StructType(Seq(
    StructField("k", LongType, nullable = false), StructField("v", StringType), StructField("x", DoubleType)))

  private def newShard(orderBy: Seq[String] = Seq("k")): ShardHandle = {
    val root = Files.createTempDirectory("shards").toString
    new ShardStore(root, spark.sparkContext.hadoopConfiguration).create("events", ShardSchema.fromStruct(dataSchema, orderBy))
  }

  private def rows(n: Int, partitions: Int): DataFrame =
    spark.range(0, n, 1, partitions).select(col("id").as("k"), col("id").cast("string").as("v"), (col("id") * 0.5).as("x"))

  private def partFiles(shard: ShardHandle): Seq[String] = {
    val parts = new File(new Path(shard.dir, "parts").toUri)
    if (!parts.exists()) Nil
    else parts.listFiles().toSeq.flatMap(b => b.listFiles().toSeq).map(_.getName).filter(_.endsWith(".parquet"))
  }

  private def readParts(shard: ShardHandle, batch: BatchMeta): DataFrame =
    spark.read.parquet(batch.parts.map(p => shard.partPath(p).toString).toSeq: _*)

  test("one run per input partition, rolled over at maxRowsPerPart, committed as one batch") {
    val shard = newShard()
    val before = shard.state
    val batch = ShardWriter.write(rows(10, 3), shard, WriteOptions(maxRowsPerPart = Some(2)))
    val state = shard.state
    assert(state.seqNo === before.seqNo + 1)
    assert(state.batches.map(_.id) === Seq(batch.id))
    assert(state.batches.head.runs.map(_.parts.map(_.rowCount)) === Seq(Seq(2L, 1L), Seq(2L, 1L), Seq(2L, 2L)))
    assert(state.partCount === 6)
    assert(batch.lower === 0L && state.upper === batch.upper)
    val commitTime = batch.upper - 1
    assert(batch.parts.forall(p => p.minTime == commitTime && p.maxTime == commitTime && !p.hasRetractions))
    assert(partFiles(shard).size === 6)
    checkAnswer(readParts(shard, batch), (0 until 10).map(i => Row(i.toLong, i.toString, i * 0.5)))
    batch.parts.foreach { p =>
      val (_, footer) = PartFooters.read(shard.partPath(p).toString, spark.sparkContext.hadoopConfiguration)
      assert(footer(PartFormat.TimeKey) === commitTime.toString)
    }
    val first = batch.parts.next()
    assert(first.stats.get.columns(1) === ColumnStats(0, Some(0L), Some(1L)))
    assert(first.stats.get.columns(3) === ColumnStats(0, Some(-0.0), Some(0.5)))
  }

  test("a part's stats are exact for its rows and survive reopening the shard") {
    val shard = newShard()
    val rows = Seq[(Long, String, java.lang.Double)]((1L, "m" * 20000, Double.NaN), (2L, "é", -0.0), (3L, null, 0.0),
      (4L, "ü" * 20000, null), (5L, "abc", 1.5)).toDF("k", "v", "x").coalesce(1)
    val batch = ShardWriter.write(rows, shard, WriteOptions())
    val Seq(part) = batch.parts.toSeq
    val str = (s: String) => Some(org.apache.spark.unsafe.types.UTF8String.fromString(s))
    assert(part.stats.get.rowCount === 5L && part.stats.get.bytes === part.bytes)
    // v gets an automatic membership filter of its 4 values (k's 1..5 fill their range: none).
    val filter = part.stats.get.columns(2).members
    assert(Seq("m" * 20000, "é", "ü" * 20000, "abc").forall(v =>
      filter.get.mayContain(sparkpersist.stats.MembershipFilter.hash(org.apache.spark.unsafe.types.UTF8String.fromString(v)))))
    assert(part.stats.get.columns === Map(
      1 -> ColumnStats(0, Some(1L), Some(5L)),
      2 -> ColumnStats(1, str("abc"), str("ü" * 63 + "ý"), members = filter),
      3 -> ColumnStats(1, Some(-0.0), Some(Double.NaN))))
    val reopened = new ShardStore(new Path(shard.dir.getParent.toString).toString, spark.sparkContext.hadoopConfiguration)
      .open("events").state
    assert(reopened.parts.toSeq === Seq(part))
  }

  test("rows of a part are sorted by the order key; the next batch starts at the upper") {
    val shard = newShard()
    val first = ShardWriter.write(rows(5, 1).orderBy(col("k").desc), shard, WriteOptions())
    assert(readParts(shard, first).select("k").as[Long].collect().toSeq === Seq(0L, 1L, 2L, 3L, 4L))
    val second = ShardWriter.write(rows(2, 1), shard, WriteOptions())
    assert(second.lower === first.upper && shard.state.upper === second.upper)
    assert(shard.state.batches.map(_.id) === Seq(first.id, second.id))
  }

  test("update writes take time and diff columns; a timestamp time becomes epoch ms") {
    val shard = newShard()
    val updates = Seq((2L, "b", 1.0, 100L, 1L), (1L, "a", 2.0, 105L, -1L), (1L, "a", 2.0, 101L, 1L))
      .toDF("k", "v", "x", "t", "d").coalesce(1)
    val batch = ShardWriter.write(updates, shard, WriteOptions(timeCol = Some("t"), diffCol = Some("d")))
    assert((batch.lower, batch.upper) === (0L, 106L))
    val Seq(part) = batch.parts.toSeq
    assert((part.minTime, part.maxTime, part.hasRetractions) === (100L, 105L, true))
    assert(readParts(shard, batch).collect().toSeq ===
      Seq(Row(1L, "a", 2.0, 101L, 1L), Row(1L, "a", 2.0, 105L, -1L), Row(2L, "b", 1.0, 100L, 1L)))

    val ts = Seq((3L, "c", 0.0, java.sql.Timestamp.valueOf("2030-01-01 00:00:00.123456"))).toDF("k", "v", "x", "ts")
    val next = ShardWriter.write(ts, shard, WriteOptions(timeCol = Some("ts")))
    val expectedMs = java.sql.Timestamp.valueOf("2030-01-01 00:00:00.123").getTime
    assert(next.parts.next().minTime === expectedMs && next.upper === expectedMs + 1)
  }

  private def assertRefused[E <: Throwable](shard: ShardHandle, df: DataFrame, options: WriteOptions)
      (implicit ct: scala.reflect.ClassTag[E]): E = {
    val before = shard.state
    val filesBefore = partFiles(shard)
    val e = intercept[E](ShardWriter.write(df, shard, options))
    assert(shard.state.seqNo === before.seqNo)
    assert(partFiles(shard) === filesBefore)
    e
  }

  test("wrong types, missing and extra columns are refused before writing") {
    val shard = newShard()
    val wrongType = rows(3, 1).withColumn("x", col("x").cast("float"))
    assert(assertRefused[IllegalArgumentException](shard, wrongType, WriteOptions()).getMessage ===
      "[PERSIST_INVALID_WRITE] Cannot write to shard 'events': column 'x' must be double, but the DataFrame's is float. " +
        "Cast it to double. SQLSTATE: 42000")
    assert(assertRefused[IllegalArgumentException](shard, rows(3, 1).drop("v"), WriteOptions()).getMessage ===
      "[PERSIST_INVALID_WRITE] Cannot write to shard 'events': the DataFrame lacks the shard column(s) 'v' string. " +
        "Add them (a null literal cast to the type, if the column is nullable). SQLSTATE: 42000")
    assert(assertRefused[IllegalArgumentException](shard, rows(3, 1).withColumn("y", lit(1)), WriteOptions()).getMessage ===
      "[PERSIST_INVALID_WRITE] Cannot write to shard 'events': column(s) 'y' are not columns of the shard (shard columns: k, v, x). " +
        "Drop them before writing. SQLSTATE: 42000")
    assert(assertRefused[IllegalArgumentException](shard, rows(3, 1).withColumn("t", lit("x")),
      WriteOptions(timeCol = Some("t"))).getMessage ===
      "[PERSIST_INVALID_WRITE] Cannot write to shard 'events': the time column 't' must be bigint or timestamp, but it is string. SQLSTATE: 42000")
    assert(assertRefused[IllegalArgumentException](shard, rows(3, 1).withColumn("time", lit(1L)), WriteOptions())
      .getMessage.startsWith("[PERSIST_INVALID_NAME.RESERVED_COLUMN] Invalid name: column 'time' is reserved by sparkpersist"))
  }

  test("times below the shard's upper are refused and the written parts deleted") {
    val shard = newShard()
    ShardWriter.write(rows(3, 1).withColumn("t", lit(50L)), shard, WriteOptions(timeCol = Some("t")))
    val stale = rows(4, 2).withColumn("t", col("k") + 48)
    assert(assertRefused[IllegalArgumentException](shard, stale, WriteOptions(timeCol = Some("t"))).getMessage ===
      "[PERSIST_INVALID_WRITE] Cannot write to shard 'events': every time must be >= the shard's upper 51 (times below it are already " +
        "complete), but the time column 't' holds 48. Nothing was written. SQLSTATE: 42000")
  }

  test("a null in a NOT NULL column fails the write and leaves nothing") {
    val shard = newShard()
    val withNull = Seq((Some(1L), "a", 1.0), (None, "b", 2.0)).toDF("k", "v", "x")
    val e = assertRefused[RuntimeException with SparkThrowable](shard, withNull, WriteOptions())
    assert(e.getCondition === "USER_RAISED_EXCEPTION")
    assert(e.getMessage === "[USER_RAISED_EXCEPTION] Cannot write: column 'k' of the shard is NOT NULL. " +
      "Filter or fill the nulls before writing. SQLSTATE: P0001")
  }

  test("of two writers starting from the same upper, exactly one commits") {
    val shard = newShard()
    val start = shard.state
    val winner = ShardWriter.write(rows(3, 1), shard, WriteOptions(), start)
    val filesAfterWinner = partFiles(shard)
    val e = intercept[UpperMismatch](ShardWriter.write(rows(4, 2), shard, WriteOptions(), start))
    assert((e.expected, e.actual) === (0L, winner.upper))
    assert(shard.state.batches.map(_.id) === Seq(winner.id))
    assert(partFiles(shard) === filesAfterWinner)
  }

  test("two concurrent writers from the same upper: one commits, the other gets UpperMismatch") {
    import scala.concurrent.{Await, Future}
    import scala.concurrent.ExecutionContext.Implicits.global
    import scala.concurrent.duration._
    val shard = newShard()
    val start = shard.state
    val outcomes = Seq(rows(3, 1), rows(5, 2)).map(df =>
      Future(scala.util.Try(ShardWriter.write(df, shard, WriteOptions(), start))))
    val results = outcomes.map(Await.result(_, 2.minutes))
    val (won, lost) = results.partition(_.isSuccess)
    assert(won.size === 1 && lost.size === 1)
    assert(lost.head.failed.get.isInstanceOf[UpperMismatch])
    assert(shard.state.batches.map(_.id) === Seq(won.head.get.id))
    assert(partFiles(shard).size === won.head.get.parts.size)
  }

  test("a write of no rows commits nothing") {
    val shard = newShard()
    val before = shard.state
    val batch = ShardWriter.write(rows(0, 2), shard, WriteOptions())
    assert(batch.runs.isEmpty && batch.lower === 0L && batch.upper === 0L)
    assert(shard.state.seqNo === before.seqNo && partFiles(shard) === Nil)
  }

  test("a session's Parquet settings never change what a part stores: microseconds and days before 1582 stay") {
    // Found by RoundTripPropertySuite: under spark.sql.parquet.outputTimestampType=TIMESTAMP_MILLIS a
    // part dropped the microseconds its stats still held; LEGACY rebasing moves the days 1582-10-05..14.
    val schema = StructType(Seq(StructField("d", DateType), StructField("ts", TimestampType),
      StructField("ntz", TimestampNTZType)))
    val values = Seq(("1582-10-10", "1582-10-10 12:34:56.123456", "1582-10-05 00:00:00.000001"),
      ("0001-01-01", "0001-01-01 00:00:00.000001", "9999-12-31 23:59:59.999999"))
    val df = values.map { case (d, ts, ntz) => s"SELECT DATE'$d' AS d, TIMESTAMP'${ts}Z' AS ts, TIMESTAMP_NTZ'$ntz' AS ntz" }
      .reduce(_ + " UNION ALL " + _)
    val settings = Seq(
      Seq(SQLConf.PARQUET_OUTPUT_TIMESTAMP_TYPE.key -> "TIMESTAMP_MILLIS"),
      Seq(SQLConf.PARQUET_OUTPUT_TIMESTAMP_TYPE.key -> "INT96", SQLConf.PARQUET_INT96_REBASE_MODE_IN_WRITE.key -> "LEGACY"),
      Seq(SQLConf.PARQUET_REBASE_MODE_IN_WRITE.key -> "LEGACY"))
    withSQLConf(SQLConf.SESSION_LOCAL_TIMEZONE.key -> "UTC") {
      val expected = sql(s"SELECT CAST(d AS STRING), CAST(ts AS STRING), CAST(ntz AS STRING) FROM ($df)").collect().toSeq
      assert(expected.map(_.getString(1)) === values.map(_._2))
      settings.foreach { setting =>
        val root = Files.createTempDirectory("shards").toString
        val shard = new ShardStore(root, spark.sparkContext.hadoopConfiguration).create("times", ShardSchema.fromStruct(schema))
        val batch = withSQLConf(setting: _*)(ShardWriter.write(sql(df).coalesce(1), shard, WriteOptions()))
        checkAnswer(readParts(shard, batch).selectExpr("CAST(d AS STRING)", "CAST(ts AS STRING)", "CAST(ntz AS STRING)"),
          expected)
        val micros = values.map(v => sql(s"SELECT unix_micros(TIMESTAMP'${v._2}Z')").head().getLong(0))
        assert(batch.parts.next().stats.get.columns(2) === ColumnStats(0, Some(micros.min), Some(micros.max)), setting)
      }
    }
  }
}
