package sparkpersist.catalog

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.util.CharVarcharUtils
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.connector.catalog.{MetadataColumn, SupportsMetadataColumns, SupportsRead, SupportsRowLevelOperations, SupportsWrite, Table, TableCapability, TruncatableTable}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, RowLevelOperationBuilder, RowLevelOperationInfo, WriteBuilder}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.dml.{DeleteWholeParts, OverwriteShard, PersistRowLevelOperation}
import sparkpersist.errors.PersistErrors
import sparkpersist.plan.{ScanPlan, ScanRequest, TableView}
import sparkpersist.scan.{PersistScanBuilder, RowIdentity}
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{ShardHandle, ShardState}
import sparkpersist.write.PersistWriteBuilder

/**
 * The snapshot (`persist.<shard>`) or updates (`persist.<shard>.updates`) view of a shard.
 * The schema is fixed when the table is loaded; the state (and so the as-of and the parts) is
 * read again when a scan is built. `INSERT INTO` the updates table writes one batch of updates
 * `(data…, time, diff)` as they are. The snapshot: `INSERT INTO` appends one batch of inserts, a streaming write one batch per micro-batch, and `DELETE`, `UPDATE` and
 * `MERGE INTO` one batch of retractions and inserts ([[PersistRowLevelOperation]]), reading the
 * snapshot with the metadata columns that name each row ([[RowIdentity]]). Both views can be read as a
 * stream (`spark.readStream.table`, see [[MicroBatchStreams]]).
 *
 * `request` carries the query's as-of and the filter over the scan; the pruning rule hands it
 * over on a copy of the table ([[withRequest]]) and the scan decides its parts from it. `travel`
 * is the as-of a `TIMESTAMP AS OF` or `VERSION AS OF` read asks for ([[TimeTravel]]), which the
 * query's own choice of time leaves as it is. Without `batchWrites` the table does not offer
 * `BATCH_WRITE` ([[withoutBatchWrites]]).
 */
final class PersistTable(val shard: ShardHandle, val shardSchema: ShardSchema, val view: TableView,
    tableName: String, tableProperties: Map[String, String], val request: ScanRequest = ScanRequest.Unset,
    val travel: Option[Long] = None, batchWrites: Boolean = true)
  extends Table with SupportsRead with SupportsWrite with SupportsRowLevelOperations with SupportsMetadataColumns
  with TruncatableTable {

  /** This table, its scans serving `newRequest`. */
  def withRequest(newRequest: ScanRequest): PersistTable =
    new PersistTable(shard, shardSchema, view, tableName, tableProperties, newRequest, travel, batchWrites)

  /** This table read as of the latest complete time of `state`, for a statement that writes it. */
  def latestOf(state: ShardState): PersistTable = withRequest(ScanRequest.latestOf(state))

  /** A relation reading [[latestOf]] `state`: the rows a statement that writes the table replaces. */
  def latestRelation(state: ShardState): DataSourceV2Relation = DataSourceV2Relation.create(latestOf(state), None, None)

  /** This table read as of `asOf` whatever the query's other reads ([[TimeTravel]]). */
  def travelledTo(asOf: Long): PersistTable =
    new PersistTable(shard, shardSchema, view, tableName, tableProperties, ScanRequest(Some(asOf), None), Some(asOf), batchWrites)

  /**
   * This table without the `BATCH_WRITE` capability: the table `format("persist")` hands Spark, so
   * that `DataFrameWriter.save` takes the data source's own path, which honors every save mode and
   * creates the shard on its first write (`sparkpersist.datasource.PersistDataSource`). Reads, streams
   * and statements are this table's.
   */
  def withoutBatchWrites: PersistTable =
    new PersistTable(shard, shardSchema, view, tableName, tableProperties, request, travel, batchWrites = false)

  override def name(): String = tableName

  /** The columns as declared (CHAR/VARCHAR as such, so Spark checks lengths on write and pads on read). */
  override def schema(): StructType = CharVarcharUtils.getRawSchema(storedSchema)

  /** The columns as parts store them: what scans read. */
  private def storedSchema: StructType = view match {
    case TableView.Updates => shardSchema.updatesSchema
    case _ => shardSchema.dataSchema
  }

  override def capabilities(): util.Set[TableCapability] = {
    val all = view match {
      case TableView.Snapshot => util.EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE,
        TableCapability.MICRO_BATCH_READ, TableCapability.STREAMING_WRITE, TableCapability.TRUNCATE,
        TableCapability.OVERWRITE_BY_FILTER, TableCapability.OVERWRITE_DYNAMIC)
      case TableView.Updates => util.EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE,
        TableCapability.MICRO_BATCH_READ, TableCapability.STREAMING_WRITE)
      case _ => util.EnumSet.of(TableCapability.BATCH_READ, TableCapability.MICRO_BATCH_READ)
    }
    if (!batchWrites) all.remove(TableCapability.BATCH_WRITE)
    all
  }

  override def properties(): util.Map[String, String] = tableProperties.asJava

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder =
    new PersistScanBuilder(shard, view, storedSchema, request, options)

  /** Appends to the snapshot; updates, with their own `time` and `diff`, to the updates table. */
  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = {
    writable(TableView.Snapshot, TableView.Updates)
    new PersistWriteBuilder(shard, info)
  }

  /** A row-level operation on the shard as it is now (its latest state, whatever this table's as-of). */
  override def newRowLevelOperationBuilder(info: RowLevelOperationInfo): RowLevelOperationBuilder = {
    writable(TableView.Snapshot)
    () => new PersistRowLevelOperation(shard, shard.state, info.command())
  }

  /**
   * `TRUNCATE TABLE`, and `DELETE FROM` without a condition: every row of the latest snapshot
   * retracted in one batch, earlier times still reading as they did. A shard of insert-only parts
   * is truncated by negating every part ([[DeleteWholeParts]]: no row read or written); else every
   * row is read and retracted ([[OverwriteShard]]).
   */
  override def truncateTable(): Boolean = {
    writable(TableView.Snapshot)
    val spark = SparkSession.active
    val state = shard.state
    DeleteWholeParts.of(ScanPlan.of(spark, shard, TableView.Snapshot, ScanRequest.latestOf(state, Some(Literal.TrueLiteral)))) match {
      case Some(whole) => whole.commit(spark)
      case None => OverwriteShard("TRUNCATE", shard, state, latestRelation(state), Literal.TrueLiteral, None).commit(spark)
    }
    true
  }

  override def metadataColumns(): Array[MetadataColumn] = view match {
    case TableView.Snapshot => RowIdentity.columns(shardSchema.dataSchema)
    case _ => Array.empty
  }

  /** Fails unless this table takes the write: one of the `views`, not read as of a past time. */
  private def writable(views: TableView*): Unit = {
    if (!views.contains(view)) {
      throw PersistErrors.unsupported(s"$tableName does not take this write", "write to the shard's snapshot table instead.")
    }
    travel.foreach { t =>
      throw PersistErrors.unsupported(s"$tableName is read as of $t here", "write to the table without " +
        "TIMESTAMP AS OF or VERSION AS OF.")
    }
  }
}
