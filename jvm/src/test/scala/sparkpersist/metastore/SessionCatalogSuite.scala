package sparkpersist.metastore

import org.apache.spark.SparkConf
import org.apache.spark.sql.{QueryTest, Row}
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.test.SharedSparkSession

/** [[PersistSessionCatalog]] over Spark's in-memory catalog (a session without Hive support). */
class SessionCatalogSuite extends QueryTest with SharedSparkSession with SessionCatalogBehaviour {

  override protected def sparkConf: SparkConf =
    sessionCatalogConf.foldLeft(super.sparkConf) { case (conf, (k, v)) => conf.set(k, v) }

  test("the session has no Hive support") {
    assert(spark.conf.get("spark.sql.catalogImplementation") === "in-memory")
  }

  test("spark.read.format(\"persist\") reads the shard in a table's directory") {
    sql("CREATE DATABASE IF NOT EXISTS by_path")
    sql("CREATE TABLE by_path.t (id BIGINT, v STRING) USING persist")
    sql("INSERT INTO by_path.t VALUES (1, 'a'), (2, 'b')")
    val location = spark.sessionState.catalog.getTableMetadata(TableIdentifier("t", Some("by_path"))).location
    checkAnswer(spark.read.format("persist").load(location.toString), Seq(Row(1L, "a"), Row(2L, "b")))
    val pathless = intercept[IllegalArgumentException](spark.read.format("persist").load())
    assert(pathless.getMessage === "The data source persist reads the shard in a directory: " +
      "spark.read.format(\"persist\").load(directory).")
  }
}
