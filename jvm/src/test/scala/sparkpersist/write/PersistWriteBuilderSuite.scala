package sparkpersist.write

import java.nio.file.Files

import org.apache.spark.{SparkConf, SparkThrowable}
import org.apache.spark.sql.{QueryTest, Row}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.test.SharedSparkSession

import sparkpersist.catalog.PersistCatalog
import sparkpersist.shard.{PartFormat, ShardHandle, ShardStore}

/** The DSv2 append path: SQL `INSERT INTO persist.x SELECT ...` through the persist catalog. */
class PersistWriteBuilderSuite extends QueryTest with SharedSparkSession {

  private lazy val root = Files.createTempDirectory("persist-write").toFile

  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.catalog.persist", classOf[PersistCatalog].getName)
    .set("spark.sql.catalog.persist.root", root.toURI.toString)

  private def withShard(body: ShardHandle => Unit): Unit =
    try {
      sql("CREATE TABLE persist.events (k BIGINT NOT NULL, v STRING) TBLPROPERTIES (order_by = 'k')")
      body(new ShardStore(root.toURI.toString, spark.sparkContext.hadoopConfiguration).open("events"))
    } finally sql("DROP TABLE IF EXISTS persist.events")

  test("INSERT INTO commits one batch: one run per task, sorted by the order key, at the commit time") {
    withShard { shard =>
      sql("INSERT INTO persist.events SELECT 100 - id AS k, CAST(id AS STRING) AS v FROM range(0, 10, 1, 2)")
      val state = shard.state
      val Seq(batch) = state.batches
      assert(batch.lower === 0L && state.upper === batch.upper)
      assert(batch.runs.map(_.parts.map(_.rowCount)) === Seq(Seq(5L), Seq(5L)))
      val commitTime = batch.upper - 1
      batch.parts.foreach { p =>
        val rows = spark.read.parquet(shard.partPath(p).toString).collect().toSeq
        assert(rows.map(_.getLong(0)) === rows.map(_.getLong(0)).sorted)
        // Stamped with the commit time: the footer names it, the file holds only k and v.
        val (fields, footer) = PartFooters.read(shard.partPath(p).toString, spark.sparkContext.hadoopConfiguration)
        assert(fields.map(_._1) === Seq("k", "v"))
        assert(footer(PartFormat.TimeKey) === commitTime.toString)
      }
      checkAnswer(sql("SELECT k, v FROM persist.events"), (0 until 10).map(i => Row(100L - i, i.toString)))
    }
  }

  test("a failing INSERT commits nothing and deletes its parts") {
    withShard { shard =>
      val e = intercept[RuntimeException with SparkThrowable](sql("INSERT INTO persist.events " +
        "SELECT id, CASE WHEN id = 7 THEN raise_error('bad row') ELSE CAST(id AS STRING) END FROM range(0, 10, 1, 2)"))
      assert(e.getCondition === "USER_RAISED_EXCEPTION")
      assert(e.getMessage === "[USER_RAISED_EXCEPTION] bad row SQLSTATE: P0001")
      assert(shard.state.batches.isEmpty && shard.state.seqNo === 0L)
      val parts = new java.io.File(new java.net.URI(shard.dir.toString + "/parts"))
      assert(!parts.exists() || parts.listFiles().forall(_.listFiles().isEmpty))
    }
  }

  test("INSERT stores dates and timestamps exactly whatever the session's Parquet settings") {
    // INSERT runs its tasks with the session's SQL settings: LEGACY rebasing would move the days of
    // the Julian-Gregorian gap, TIMESTAMP_MILLIS drop microseconds (found by RoundTripPropertySuite).
    sql("CREATE TABLE persist.times (d DATE, ts TIMESTAMP)")
    try {
      withSQLConf(SQLConf.SESSION_LOCAL_TIMEZONE.key -> "UTC") {
        withSQLConf(SQLConf.PARQUET_REBASE_MODE_IN_WRITE.key -> "LEGACY",
            SQLConf.PARQUET_OUTPUT_TIMESTAMP_TYPE.key -> "TIMESTAMP_MILLIS") {
          sql("INSERT INTO persist.times VALUES (DATE'1582-10-10', TIMESTAMP'1582-10-05 12:34:56.123456')")
        }
        withSQLConf(SQLConf.PARQUET_INT96_REBASE_MODE_IN_WRITE.key -> "LEGACY",
            SQLConf.PARQUET_OUTPUT_TIMESTAMP_TYPE.key -> "INT96") {
          sql("INSERT INTO persist.times VALUES (DATE'0001-01-01', TIMESTAMP'1000-02-28 23:59:59.999999')")
        }
        checkAnswer(sql("SELECT CAST(d AS STRING), CAST(ts AS STRING) FROM persist.times"),
          Seq(Row("1582-10-10", "1582-10-05 12:34:56.123456"), Row("0001-01-01", "1000-02-28 23:59:59.999999")))
      }
    } finally sql("DROP TABLE IF EXISTS persist.times")
  }

  test("DataFrameWriterV2 options are honored as sparkpersist.write honors them") {
    withShard { shard =>
      spark.range(0, 10, 1, 1).selectExpr("id AS k", "CAST(id AS STRING) AS v").writeTo("persist.events")
        .option("max_rows_per_part", "4").option("index_columns", "v").option("keep_stats", "k").append()
      val Seq(batch) = shard.state.batches
      assert(batch.parts.map(_.rowCount).toSeq === Seq(4L, 4L, 2L))
      val vId = shard.state.schema.column("v").get.id
      assert(batch.parts.forall(_.stats.exists(_.columns(vId).members.isDefined)))
      checkAnswer(sql("SELECT k, v FROM persist.events"), (0 until 10).map(i => Row(i.toLong, i.toString)))
      // A column that is not the shard's is named.
      val e = intercept[IllegalArgumentException](spark.range(1).selectExpr("id AS k", "'a' AS v")
        .writeTo("persist.events").option("keep_stats", "nope").append())
      assert(e.getMessage.contains("nope"), e.getMessage)
      assert(shard.state.batches.size === 1)
    }
  }

  test("a DSv2 write refuses the options it cannot honor, and unknown ones, by name") {
    withShard { shard =>
      val df = spark.range(3).selectExpr("id AS k", "'a' AS v")
      for ((key, says) <- Seq("time_col" -> "writeTo('persist.<shard>.updates')", "diff_col" -> "INSERT INTO persist.<shard>.updates",
          "order_by" -> "table property 'order_by'", "merge_schema" -> "ADD COLUMNS",
          "tiem_col" -> "unknown write option 'tiem_col'", "max_rows_per_part" -> "at least 1")) {
        val e = intercept[IllegalArgumentException](df.writeTo("persist.events").option(key, "0").append())
        assert(e.getMessage.startsWith("[PERSIST_INVALID_WRITE] Cannot write to shard 'events': "), e.getMessage)
        assert(e.getMessage.contains(says), s"$key: ${e.getMessage}")
      }
      val json = intercept[IllegalArgumentException](df.writeTo("persist.events").option("json_columns", "v").append())
      assert(json.getMessage.contains("its JSON columns are ()"), json.getMessage)
      assert(shard.state.batches.isEmpty)
    }
  }

  test("writeTo(...).create() with an option it refuses leaves no shard behind") {
    val df = spark.range(3).selectExpr("id AS k", "id AS t", "1L AS d")
    val e = intercept[IllegalArgumentException](df.writeTo("persist.created").option("time_col", "t")
      .option("diff_col", "d").create())
    assert(e.getMessage.contains("'diff_col' is not taken here"), e.getMessage)
    assert(!spark.catalog.tableExists("persist.created"))
  }
}
