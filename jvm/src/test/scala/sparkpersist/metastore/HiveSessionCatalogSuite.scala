package sparkpersist.metastore

import java.nio.file.Files

import org.apache.spark.sql.QueryTest
import org.apache.spark.sql.classic.SparkSession

/**
 * [[PersistSessionCatalog]] over a real Hive metastore: Spark's Hive support with the embedded Derby
 * database, in a fresh directory (the metastore and warehouse a Thrift server or a BI tool would share).
 */
class HiveSessionCatalogSuite extends QueryTest with SessionCatalogBehaviour {

  private lazy val dir = Files.createTempDirectory("hive-session-catalog").toFile
  private var session: SparkSession = _

  override protected def spark: SparkSession = session

  override def beforeAll(): Unit = {
    super.beforeAll()
    SparkSession.getActiveSession.foreach(_ => SparkSession.clearActiveSession())
    val builder = SparkSession.builder().master("local[2]").appName(getClass.getSimpleName)
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.sql.warehouse.dir", new java.io.File(dir, "warehouse").toURI.toString)
      .config("spark.hadoop.javax.jdo.option.ConnectionURL",
        s"jdbc:derby:;databaseName=${dir.getAbsolutePath}/metastore_db;create=true")
    System.setProperty("derby.system.home", dir.getAbsolutePath)
    session = sessionCatalogConf.foldLeft(builder) { case (b, (k, v)) => b.config(k, v) }
      .enableHiveSupport().getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
  }

  override def afterAll(): Unit =
    try {
      if (session != null) session.stop()
      SparkSession.clearActiveSession()
      SparkSession.clearDefaultSession()
    } finally super.afterAll()

  test("the metastore is Hive's, and keeps a persist table's entry with provider persist") {
    assert(spark.sharedState.externalCatalog.unwrapped.getClass.getName === "org.apache.spark.sql.hive.HiveExternalCatalog")
    spark.sql("CREATE DATABASE IF NOT EXISTS hive_db")
    spark.sql("CREATE TABLE hive_db.t (id BIGINT, v STRING) USING persist")
    val stored = spark.sharedState.externalCatalog.getTable("hive_db", "t")
    assert(stored.provider === Some("persist"))
    assert(stored.schema.map(_.name) === Seq("id", "v"))
    assert(new java.io.File(dir, "metastore_db").isDirectory)
  }
}
