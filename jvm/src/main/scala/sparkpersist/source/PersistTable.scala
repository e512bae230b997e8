package sparkpersist.source

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.shard.{ShardHandle, ShardSchema}

/**
 * The snapshot (`persist.<shard>`) or updates (`persist.<shard>.updates`) view of a shard.
 * The schema is fixed when the table is loaded; the state (and so the as-of and the parts) is
 * read again when a scan is built.
 */
final class PersistTable(val shard: ShardHandle, val shardSchema: ShardSchema, val view: TableView,
    tableName: String, tableProperties: Map[String, String]) extends Table with SupportsRead {

  override def name(): String = tableName

  override def schema(): StructType = view match {
    case TableView.Updates => shardSchema.updatesSchema
    case _ => shardSchema.dataSchema
  }

  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)

  override def properties(): util.Map[String, String] = tableProperties.asJava

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder =
    new PersistScanBuilder(shard, view, schema())
}
