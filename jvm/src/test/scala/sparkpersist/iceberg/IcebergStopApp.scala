package sparkpersist.iceberg

import java.util.concurrent.CountDownLatch

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.iceberg.hadoop.HadoopTables
import org.apache.spark.scheduler.{SparkListener, SparkListenerApplicationEnd}
import org.apache.spark.sql.SparkSession

import sparkpersist.PersistExtensions
import sparkpersist.catalog.PersistCatalog
import sparkpersist.shard.ShardStore

/**
 * A Spark application (run by `IcebergAsyncSuite` in a process of its own) that appends to a shard with
 * the Iceberg property and stops right away: its background writer is held from the second append until
 * the application's end is announced, so the stop must wait for it. After the stop it prints
 * `versions <shard version> shown <versions the Iceberg snapshots show>`. Argument: the catalog's root.
 */
object IcebergStopApp {
  def main(args: Array[String]): Unit = {
    val root = args(0)
    val spark = SparkSession.builder().master("local[1]").appName("IcebergStopApp")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.extensions", classOf[PersistExtensions].getName)
      .config("spark.sql.catalog.persist", classOf[PersistCatalog].getName)
      .config("spark.sql.catalog.persist.root", root)
      .getOrCreate()
    val ended = new CountDownLatch(1)
    spark.sparkContext.addSparkListener(new SparkListener {
      override def onApplicationEnd(end: SparkListenerApplicationEnd): Unit = ended.countDown()
    })
    spark.sql("CREATE TABLE persist.stopped (id BIGINT) TBLPROPERTIES ('sparkpersist.iceberg' = 'true')")
    spark.sql("INSERT INTO persist.stopped VALUES (1)")
    val store = new ShardStore(root, new Configuration())
    require(IcebergSyncQueue.awaitShard(store.open("stopped"), 120000L))
    IcebergSyncQueue.beforeSync = _ => ended.await()
    spark.sql("INSERT INTO persist.stopped VALUES (2)")
    spark.sql("INSERT INTO persist.stopped VALUES (3)")
    spark.stop()
    val shard = store.open("stopped")
    val table = new HadoopTables(new Configuration()).load(shard.dir.toString)
    val shown = table.snapshots().asScala.toSeq.sortBy(_.sequenceNumber()).map(_.summary().get("sparkpersist.version"))
    println(s"versions ${shard.state.seqNo} shown ${shown.mkString(",")}")
  }
}
