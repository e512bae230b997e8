package sparkpersist.metastore

import org.apache.spark.SparkConf
import org.apache.spark.sql.QueryTest
import org.apache.spark.sql.test.SharedSparkSession

/** [[PersistSessionCatalog]] over Spark's in-memory catalog (a session without Hive support). */
class SessionCatalogSuite extends QueryTest with SharedSparkSession with SessionCatalogBehaviour {

  override protected def sparkConf: SparkConf =
    sessionCatalogConf.foldLeft(super.sparkConf) { case (conf, (k, v)) => conf.set(k, v) }

  test("the session has no Hive support") {
    assert(spark.conf.get("spark.sql.catalogImplementation") === "in-memory")
  }
}
