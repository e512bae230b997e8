package sparkpersist.catalog

import java.nio.file.Files

import org.apache.spark.SparkConf
import org.apache.spark.sql.{QueryTest, Row}
import org.apache.spark.sql.test.SharedSparkSession

import sparkpersist.PersistConf
import sparkpersist.shard.ShardStore

/**
 * A session configured with the catalog alone (`spark.sql.catalog.persist`, no
 * `spark.sql.extensions`): what the catalog's tables reach through a ServiceLoader seam works there
 * too, the procedures of `compact` and `restore`, the streaming reads and writes of `stream` and the automatic
 * compaction after a commit. No class above `catalog` loads in such a session before the catalog
 * does, so none of them could have registered itself first (see the seams' interfaces).
 */
class CatalogOnlySessionSuite extends QueryTest with SharedSparkSession {

  private lazy val root = Files.createTempDirectory("catalog-only").toFile

  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.catalog.persist", classOf[PersistCatalog].getName)
    .set("spark.sql.catalog.persist.root", root.toURI.toString)

  private def store: ShardStore = new ShardStore(root.toURI.toString, spark.sessionState.newHadoopConf())

  test("the session has no sparkpersist extension") {
    assert(!spark.conf.getOption("spark.sql.extensions").exists(_.contains("sparkpersist")))
  }

  test("CALL persist.system offers the catalog's own procedures (iceberg's too), compact's, restore's and api's write") {
    sql("CREATE TABLE persist.procs (k BIGINT, v STRING)")
    assert(sql("SHOW PROCEDURES IN persist.system").collect().map(_.getString(3)).toSeq.sorted ===
      Seq("clustering", "compact", "drop_batch", "gc", "iceberg", "last_scans", "restore", "write"))
    assert(sql("CALL persist.system.gc('procs', keep_versions => 1, grace_ms => 0)").collect().length === 1)
    sql("SELECT * FROM persist.procs").collect()
    assert(sql("CALL persist.system.last_scans()").collect().map(_.getAs[String]("shard")).toSeq === Seq("procs"))
    spark.range(3).selectExpr("id AS k", "CAST(id AS STRING) AS v").createOrReplaceTempView("procs_rows")
    val written = sql("CALL persist.system.write(shard => 'procs', source => 'procs_rows')").collect()
    assert(written.map(_.getAs[Long]("rows")).toSeq === Seq(3L))
    assert(sql("SELECT count(*) FROM persist.procs").collect().head.getLong(0) === 3L)
    sql("INSERT INTO persist.procs VALUES (9, 'x')")
    assert(sql("CALL persist.system.restore(shard => 'procs', version => 1)").collect().map(_.getAs[Long]("num_retracted_rows"))
      .toSeq === Seq(1L))
    checkAnswer(sql("SELECT k FROM persist.procs"), Seq(Row(0L), Row(1L), Row(2L)))
    checkAnswer(sql("SELECT version, operation FROM persist.procs.history"),
      Seq(Row(3L, "RESTORE"), Row(2L, "WRITE"), Row(1L, "WRITE"), Row(0L, "CREATE TABLE")))
  }

  test("a shard is read and written as a stream") {
    sql("CREATE TABLE persist.src (k BIGINT, v STRING)")
    sql("CREATE TABLE persist.dst (k BIGINT, v STRING)")
    sql("INSERT INTO persist.src VALUES (1, 'a'), (2, 'b')")
    val checkpoint = Files.createTempDirectory("catalog-only-checkpoint").toFile
    val query = spark.readStream.table("persist.src")
      .writeStream.option("checkpointLocation", checkpoint.getCanonicalPath).toTable("persist.dst")
    try query.processAllAvailable()
    finally query.stop()
    checkAnswer(sql("SELECT k, v FROM persist.dst"), Seq(Row(1L, "a"), Row(2L, "b")))
  }

  test("automatic compaction follows the commits of SQL writes") {
    val day = 86400000L
    sql("CREATE TABLE persist.auto (k BIGINT, v STRING)")
    withSQLConf(PersistConf.AutoCompact.key -> "true", PersistConf.CompactWindowMs.key -> day.toString,
        PersistConf.CompactTargetBytes.key -> (1L << 30).toString) {
      val batches = Seq(10L, 20L, 30L, day + 1).map { t =>
        sql(s"INSERT INTO persist.auto.updates VALUES ($t, 'at $t', $t, 1)")
        store.open("auto").state.batches.size
      }
      // Day 0 is sealed by the write of day 1, after which its three batches are one.
      assert(batches === Seq(1, 2, 3, 2))
    }
  }
}
