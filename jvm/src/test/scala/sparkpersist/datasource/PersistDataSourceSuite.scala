package sparkpersist.datasource

import java.io.File
import java.nio.file.Files

import org.apache.spark.sql.{AnalysisException, DataFrame, QueryTest, Row}
import org.apache.spark.sql.functions.{col, lit}
import org.apache.spark.sql.streaming.Trigger

import sparkpersist.PersistSparkSession
import sparkpersist.scan.ScanReports
import sparkpersist.shard.NoSuchShard

/**
 * Shards at paths: the catalog's path tables (`persist.\`uri\``) and the data source
 * `format("persist")`, read and written as a user does, compared with plain Spark over a Parquet
 * copy of the same rows and with a catalog table holding the same batches.
 */
class PersistDataSourceSuite extends QueryTest with PersistSparkSession {

  /** Shards outside the catalog's root. */
  private lazy val elsewhere: File = Files.createTempDirectory("persist-paths").toFile

  private def at(name: String): String = new File(elsewhere, name).toURI.toString.stripSuffix("/")

  private def rows(n: Long, from: Long = 0L): DataFrame =
    spark.range(from, from + n).select(col("id"), (col("id") * 1.5).as("amount"), (col("id") % 3).cast("string").as("k"))

  /** The rows of `query` over a plain Parquet copy of `df`, read without Parquet filter pushdown: the oracle. */
  private def oracle(df: DataFrame, query: String): Seq[Row] = {
    val copy = Files.createTempDirectory(elsewhere.toPath, "oracle").toFile
    df.write.mode("overwrite").parquet(copy.getPath)
    withSQLConf("spark.sql.parquet.filterPushdown" -> "false") {
      spark.read.parquet(copy.getPath).createOrReplaceTempView("oracle")
      sql(query.replace("{t}", "oracle")).collect().toSeq
    }
  }

  test("CREATE TABLE persist.`<path>`, INSERT, DELETE, time travel and metadata views; a path and its file: URI are one shard") {
    val uri = at("t")
    val path = new File(elsewhere, "t").getPath
    sql(s"CREATE TABLE persist.`$path` (id BIGINT, amount DOUBLE, k STRING)")
    assert(new File(elsewhere, "t/state/00000000000000000000.json").isFile)
    assert(!new File(root, "t").exists())
    sql(s"INSERT INTO persist.`$uri` SELECT * FROM range(0, 6) AS r(id) LATERAL VIEW explode(array(id * 1.5)) AS amount " +
      "LATERAL VIEW explode(array(CAST(id % 3 AS STRING))) AS k")
    sql(s"DELETE FROM persist.`$path` WHERE k = '0'")
    val expected = oracle(rows(6).where("k <> '0'"), "SELECT id, amount, k FROM {t}")
    checkAnswer(sql(s"SELECT id, amount, k FROM persist.`$uri`"), expected)
    checkAnswer(spark.read.format("persist").load(path), expected)
    checkAnswer(sql(s"SELECT count(*) FROM persist.`$uri` VERSION AS OF 1"), Row(6L))
    checkAnswer(sql(s"SELECT count(*) FROM persist.`$path`.batches"), Row(2L))
    checkAnswer(sql(s"SELECT sum(diff) FROM persist.`$path`.updates"), Row(4L))
    assert(sql(s"SELECT * FROM persist.`$path`.parts").count() >= 1)
    sql(s"DROP TABLE persist.`$uri`")
    assert(!new File(elsewhere, "t").exists())
    val missing = intercept[AnalysisException](sql(s"SELECT * FROM persist.`$path`"))
    assert(missing.getCondition === "TABLE_OR_VIEW_NOT_FOUND")
    assert(intercept[AnalysisException](sql(s"SELECT * FROM persist.`$path`.parts")).getCondition === "TABLE_OR_VIEW_NOT_FOUND")
  }

  test("df.write.format(persist) honors every save mode; overwrite retracts, and earlier versions read as before") {
    val p = at("modes")
    rows(4).write.format("persist").save(p) // errorifexists on no shard: creates it with the DataFrame's schema
    assert(spark.read.format("persist").load(p).schema.fieldNames.toSeq === Seq("id", "amount", "k"))
    val refused = intercept[IllegalStateException](rows(2).write.format("persist").save(p))
    assert(refused.getMessage === s"[PERSIST_PATH_EXISTS] A shard exists at $p, and save mode 'errorifexists' (the " +
      "default) refuses to write to it. Use mode('append') to add the rows, mode('overwrite') to replace them, or " +
      "mode('ignore') to leave the shard as it is. SQLSTATE: 42K04")
    rows(2, from = 100).write.format("persist").mode("ignore").save(p)
    rows(3, from = 10).write.format("persist").mode("append").option("max_rows_per_part", "1").save(p)
    checkAnswer(spark.read.format("persist").load(p),
      oracle(rows(4).union(rows(3, from = 10)), "SELECT * FROM {t}"))
    checkAnswer(sql(s"SELECT count(*) FROM persist.`$p`.parts AS p WHERE p.batch_id = (SELECT max_by(b.batch_id, " +
      s"b.upper) FROM persist.`$p`.batches AS b)"), Row(3L))
    rows(2, from = 50).write.format("persist").mode("overwrite").save(p)
    checkAnswer(spark.read.format("persist").load(p), oracle(rows(2, from = 50), "SELECT * FROM {t}"))
    // Overwrite is retractions plus inserts, one batch: the version before it still reads the old rows.
    checkAnswer(sql(s"SELECT count(*) FROM persist.`$p` VERSION AS OF 2"), Row(7L))
    checkAnswer(sql(s"SELECT sum(diff), count(*) FROM persist.`$p`.updates"), Row(2L, 16L))
    // The procedures take a path as the shard; SHOW TABLES IN a path table lists its views.
    sql(s"CALL persist.system.compact(shard => '$p')")
    checkAnswer(spark.read.format("persist").load(p), oracle(rows(2, from = 50), "SELECT * FROM {t}"))
    assert(sql(s"SHOW TABLES IN persist.`$p`").collect().map(_.getString(1)).toSeq === Seq("updates", "parts", "batches", "history")) // 7 inserts, then 7 retractions and 2 inserts
    // Options are the catalog write's: an unknown one fails, naming the options a write takes.
    val unknown = intercept[IllegalArgumentException](rows(1).write.format("persist").mode("append").option("nope", "1").save(p))
    assert(unknown.getMessage.contains("nope"))
    // The table properties a shard is created with are options of the write that creates it.
    val q = at("ordered")
    rows(3).write.format("persist").option("order_by", "k").save(q)
    checkAnswer(sql(s"SHOW TBLPROPERTIES persist.`$q` ('order_by')"), Row("order_by", "k"))
    val fixed = intercept[IllegalArgumentException](rows(1).write.format("persist").mode("append").option("order_by", "id").save(q))
    assert(fixed.getMessage === s"[PERSIST_INVALID_OPTION] The shard at $q exists: order_by are set when a shard is " +
      s"created: drop these options, or change them with ALTER TABLE persist.`$q`. SQLSTATE: 42K06")
  }

  test("a read of a path without a shard, and a write without a path, say what to do") {
    val none = at("none")
    val e = intercept[NoSuchShard](spark.read.format("persist").load(none))
    assert(e.getMessage === s"[PERSIST_SHARD_NOT_FOUND_AT] There is no shard at $none (no state/00000000000000000000.json " +
      "under it). Create one there first, or check the path. SQLSTATE: 42P01")
    val noPath = intercept[IllegalArgumentException](rows(1).write.format("persist").mode("append").save())
    assert(noPath.getMessage.startsWith("[PERSIST_INVALID_OPTION] format(\"persist\"): it needs the shard's path"))
    assert(!new File(elsewhere, "none").exists())
  }

  test("a path table prunes, reports and explains exactly as a catalog table holding the same batches") {
    val p = at("pruned")
    (0 until 10).foreach { d =>
      val day = spark.range(20).select((col("id") + d * 100L).as("n"), lit(d).as("d")).coalesce(1)
      day.write.format("persist").mode("append").save(p)
      if (d == 0) day.writeTo("persist.same").create() else day.writeTo("persist.same").append()
    }
    val queries = Seq("n BETWEEN 250 AND 419" -> 2, "n * 2 + 1 > 1801" -> 1, "d IN (3, 7) OR n < 5" -> 3, "n >= 0" -> 10)
    queries.foreach { case (filter, kept) =>
      val (pathRows, pathReports) = inEveryMode(s"SELECT n FROM persist.`$p` WHERE $filter")
      val (catalogRows, catalogReports) = inEveryMode(s"SELECT n FROM persist.same WHERE $filter")
      assert(pathRows === catalogRows, filter)
      assert(pathRows === oracle(spark.table("persist.same"), s"SELECT n FROM {t} WHERE $filter").map(_.toString).sorted)
      Seq("on", "soft", "off").foreach { mode =>
        assert(pathReports(mode).map(r => (r.mode, r.metrics.partsKept, r.metrics.partsPruned)) ===
          catalogReports(mode).map(r => (r.mode, r.metrics.partsKept, r.metrics.partsPruned)), s"$mode: $filter")
      }
      assert(pathReports("on").map(_.metrics.partsKept) === Seq(kept), filter)
      assert(pathReports("on").map(_.shard) === Seq(store.dirOf(p).toString))
      // The DataFrame reader reads the same table.
      val viaReader = spark.read.format("persist").load(p).where(filter).select("n").collect().map(_.toString).toSeq.sorted
      assert(viaReader === pathRows)
      assert(ScanReports.last(spark).map(_.metrics.partsKept) === Seq(kept), filter)
    }
    val explained = sql(s"EXPLAIN SELECT n FROM persist.`$p` WHERE n BETWEEN 250 AND 419").collect().head.getString(0)
    assert(explained.contains("parts: 2/10"), explained)
    val explainedReader = spark.read.format("persist").load(p).where("n BETWEEN 250 AND 419")
      .queryExecution.executedPlan.toString
    assert(explainedReader.contains("parts: 2/10"), explainedReader)
  }

  test("readStream and writeStream format(persist) copy a shard, one batch per micro-batch") {
    val src = at("stream_src")
    val dst = at("stream_dst")
    rows(5).write.format("persist").save(src)
    rows(1).limit(0).write.format("persist").save(dst)
    rows(3, from = 5).write.format("persist").mode("append").save(src)
    val checkpoint = Files.createTempDirectory(elsewhere.toPath, "checkpoint").toFile
    def run(): Unit = {
      val query = spark.readStream.format("persist").load(src).writeStream.format("persist")
        .option("checkpointLocation", checkpoint.getPath).trigger(Trigger.AvailableNow()).start(dst)
      try query.awaitTermination() finally query.stop()
    }
    run()
    checkAnswer(spark.read.format("persist").load(dst), oracle(rows(8), "SELECT * FROM {t}"))
    rows(2, from = 8).write.format("persist").mode("append").save(src)
    run()
    checkAnswer(spark.read.format("persist").load(dst), oracle(rows(10), "SELECT * FROM {t}"))
    checkAnswer(sql(s"SELECT sum(diff) FROM persist.`$dst`.updates"), Row(10L))
  }
}
