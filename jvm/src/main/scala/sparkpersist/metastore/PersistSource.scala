package sparkpersist.metastore

import java.util

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.catalog.{PersistTable, ShardTables}
import sparkpersist.plan.TableView

/**
 * The data source `persist`, which makes `USING persist` a table provider Spark knows: with it, a
 * `CREATE TABLE db.t ... USING persist` in the session catalog reaches [[PersistSessionCatalog]] as a
 * DataSource V2 table. Given a path (a metastore entry's location, `spark.read.format("persist").load(dir)`),
 * it reads the shard there, its schema the shard's own.
 */
class PersistSource extends TableProvider with DataSourceRegister {

  /**
   * `persist` in a session whose session catalog keeps persist tables, else a name no one writes. Spark
   * takes a two-part table name it cannot resolve, such as `persist.<missing shard>`, for a query on the
   * files of the data source its first part names: without a session catalog that needs the provider,
   * `persist.<name>` stays a name of the persist catalog alone, and a missing shard is TABLE_OR_VIEW_NOT_FOUND.
   */
  override def shortName(): String = if (PersistSource.inUse) PersistSource.ShortName else "sparkpersist.metastore"

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = table(options).schema()

  /** The shard's table; `schema` (a metastore's copy) is not used: the shard's own schema is the table's. */
  override def getTable(schema: StructType, partitioning: Array[Transform], properties: util.Map[String, String]): Table =
    table(new CaseInsensitiveStringMap(properties))

  override def supportsExternalMetadata(): Boolean = true

  private def table(options: CaseInsensitiveStringMap): PersistTable = {
    val path = Option(options.get("path")).filter(_.nonEmpty).getOrElse(throw new IllegalArgumentException(
      "The data source persist reads the shard in a directory: spark.read.format(\"persist\").load(directory)."))
    val location = new Path(path).toUri
    val shard = new ShardAtLocation(location, SparkSession.active.sessionState.newHadoopConf()).open()
    ShardTables.data(shard, TableView.Snapshot, s"persist.`$path`")
  }
}

object PersistSource {
  /** The provider name of persist tables: `USING persist`. */
  val ShortName = "persist"

  /** Whether the active session's session catalog is [[PersistSessionCatalog]]. */
  private def inUse: Boolean = SparkSession.getActiveSession.exists(
    _.conf.getOption(SessionCatalogKey).contains(classOf[PersistSessionCatalog].getName))

  private val SessionCatalogKey = "spark.sql.catalog.spark_catalog"

  /** Whether `provider` (a CREATE TABLE's or a metastore entry's) names persist tables. */
  def names(provider: String): Boolean = provider != null && provider.equalsIgnoreCase(ShortName)
}
