package sparkpersist.source

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{SupportsRead, SupportsWrite, Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.shard.{ShardHandle, ShardSchema}
import sparkpersist.write.PersistWriteBuilder

/**
 * The snapshot (`persist.<shard>`) or updates (`persist.<shard>.updates`) view of a shard.
 * The schema is fixed when the table is loaded; the state (and so the as-of and the parts) is
 * read again when a scan is built. Only the snapshot accepts writes: `INSERT INTO` appends one
 * batch of inserts.
 *
 * `selection` decides which parts its scans read; a pruning rule derives it from a query's
 * filter and scans a copy of the table carrying it ([[withSelection]]).
 */
final class PersistTable(val shard: ShardHandle, val shardSchema: ShardSchema, val view: TableView,
    tableName: String, tableProperties: Map[String, String], val selection: PartSelection = PartSelection.All)
  extends Table with SupportsRead with SupportsWrite {

  /** This table, its scans reading only the parts `newSelection` keeps. */
  def withSelection(newSelection: PartSelection): PersistTable =
    new PersistTable(shard, shardSchema, view, tableName, tableProperties, newSelection)

  override def name(): String = tableName

  override def schema(): StructType = view match {
    case TableView.Updates => shardSchema.updatesSchema
    case _ => shardSchema.dataSchema
  }

  override def capabilities(): util.Set[TableCapability] = view match {
    case TableView.Snapshot => util.EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE)
    case _ => util.EnumSet.of(TableCapability.BATCH_READ)
  }

  override def properties(): util.Map[String, String] = tableProperties.asJava

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder =
    new PersistScanBuilder(shard, view, schema(), selection)

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = view match {
    case TableView.Snapshot => new PersistWriteBuilder(shard, info)
    case _ => throw new UnsupportedOperationException(
      s"$tableName is read-only: write to the shard's snapshot table instead.")
  }
}
