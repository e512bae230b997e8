package sparkpersist.datasource

import java.util

import org.apache.spark.sql.{DataFrame, SaveMode, SQLContext}
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.connector.catalog.{Identifier, Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.{BaseRelation, CreatableRelationProvider, DataSourceRegister}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.catalog.{PersistTable, SessionShards}

/**
 * The data source `persist`: the shard at a path, any Hadoop URI the store accepts.
 *
 *  - `spark.read.format("persist").load(uri)` and `spark.readStream.format("persist").load(uri)`
 *    read the catalog's path table `persist.\`uri\`` (the same [[PersistTable]], so pruning, soft
 *    mode, `last_scans`, EXPLAIN and stream options are the catalog table's).
 *  - `df.write.format("persist").mode(m).save(uri)`: [[PathWrites]], every save mode.
 *  - `df.writeStream.format("persist").start(uri)`: the catalog table's streaming write, to a
 *    shard that exists.
 *
 * A path write is a write to the catalog's path table, so the table handed to Spark here has no
 * `BATCH_WRITE` ([[PersistTable.withoutBatchWrites]]): Spark then saves through
 * [[createRelation]], which honors every save mode (Spark's DSv2 save takes only append and
 * overwrite, and only to a table that exists). Needs the session's catalog `persist`.
 */
class PersistDataSource extends TableProvider with CreatableRelationProvider with DataSourceRegister {

  override def shortName(): String = "persist"

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = load(PathWrites.path(options)).schema()

  /** Spark hands a write's DataFrame schema here (the shard need not exist yet); the shard's own is the table's. */
  override def supportsExternalMetadata(): Boolean = true

  override def getTable(schema: StructType, partitioning: Array[Transform], properties: util.Map[String, String]): Table = {
    val path = PathWrites.path(new CaseInsensitiveStringMap(properties))
    if (SessionShards.store(SparkSession.active).exists(path)) load(path) else new NoShardAt(path, schema)
  }

  override def createRelation(sqlContext: SQLContext, mode: SaveMode, parameters: Map[String, String],
      data: DataFrame): BaseRelation = {
    PathWrites.save(mode, parameters, data)
    val context = sqlContext
    new BaseRelation {
      override def sqlContext: SQLContext = context
      override def schema: StructType = data.schema
    }
  }

  private def load(path: String): PersistTable =
    try SessionShards.catalog(SparkSession.active).loadTable(Identifier.of(Array.empty, path)) match {
      case t: PersistTable => t.withoutBatchWrites
      case other => throw new IllegalStateException(s"${other.name()} is not a shard's table.")
    } catch {
      case _: NoSuchTableException => throw PathWrites.noShard(path)
    }
}
