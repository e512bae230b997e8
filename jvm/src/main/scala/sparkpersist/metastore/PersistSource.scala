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
 * it reads the shard there, its schema the shard's own; without one it says which catalog to configure.
 */
class PersistSource extends TableProvider with DataSourceRegister {

  override def shortName(): String = PersistSource.ShortName

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = table(options).schema()

  /** The shard's table; `schema` (a metastore's copy) is not used: the shard's own schema is the table's. */
  override def getTable(schema: StructType, partitioning: Array[Transform], properties: util.Map[String, String]): Table =
    table(new CaseInsensitiveStringMap(properties))

  override def supportsExternalMetadata(): Boolean = true

  private def table(options: CaseInsensitiveStringMap): PersistTable = {
    val path = Option(options.get("path")).filter(_.nonEmpty).getOrElse(throw new IllegalArgumentException(
      s"A persist table lives in a catalog that keeps its shard: set spark.sql.catalog.spark_catalog=" +
        s"${classOf[PersistSessionCatalog].getName} for persist tables in the metastore (CREATE TABLE db.t ... " +
        s"USING persist), or use the persist catalog (spark.sql.catalog.persist=sparkpersist.catalog.PersistCatalog). " +
        "spark.read.format(\"persist\").load(directory) reads the shard in a directory."))
    val location = new Path(path).toUri
    val shard = new ShardAtLocation(location, SparkSession.active.sessionState.newHadoopConf()).open()
    ShardTables.data(shard, TableView.Snapshot, s"persist.`$path`")
  }
}

object PersistSource {
  /** The provider name of persist tables: `USING persist`. */
  val ShortName = "persist"

  /** Whether `provider` (a CREATE TABLE's or a metastore entry's) names persist tables. */
  def names(provider: String): Boolean = provider != null && provider.equalsIgnoreCase(ShortName)
}
