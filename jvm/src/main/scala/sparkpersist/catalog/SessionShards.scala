package sparkpersist.catalog

import org.apache.spark.sql.{SparkSession => ApiSession}
import org.apache.spark.sql.classic.SparkSession

import sparkpersist.errors.PersistErrors
import sparkpersist.plan.TableView
import sparkpersist.shard.ShardStore

/**
 * The shards a session sees: those of its persist catalog. Programmatic entry points (the
 * Python facade) go through the catalog, so they see exactly what SQL sees.
 */
object SessionShards {

  /** The catalog name the Python package registers (`persist.<shard>` in SQL). */
  val CatalogName = "persist"

  def catalog(spark: ApiSession): PersistCatalog =
    spark.asInstanceOf[SparkSession].sessionState.catalogManager.catalog(CatalogName) match {
      case c: PersistCatalog => c
      case other => throw PersistErrors.invalidOption(s"Catalog '$CatalogName'", s"it is ${other.getClass.getName}, " +
        s"not sparkpersist's: set spark.sql.catalog.$CatalogName=${classOf[PersistCatalog].getName}.")
    }

  def store(spark: ApiSession): ShardStore = catalog(spark).shardStore

  /** The SQL name of a shard's parts table. */
  def partsTable(shard: String): String = PersistTableId(shard, TableView.Parts).sqlName(CatalogName)
}
