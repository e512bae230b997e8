package sparkpersist.catalog

import java.util

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{LocalScan, Scan, ScanBuilder}
import org.apache.spark.sql.types._
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.shard.{ShardHandle, ShardState}

/**
 * `persist.<shard>.batches`: one row per batch of the shard's current state, oldest first: its
 * time bounds `[lower, upper)`, how many appended batches it holds (more than one once compaction
 * merged them), its runs, parts, rows and bytes, and the range of its update times (null for a
 * batch whose updates all cancelled), and what wrote it where the batch records it
 * ([[sparkpersist.shard.CommitInfo]]: the operation, the upper of the state a statement read —
 * below `lower` when its commit followed others' — and the session's user metadata). With
 * `persist.<shard>.parts` it shows what compaction did.
 */
final class BatchesTable(shard: ShardHandle, tableName: String) extends Table with SupportsRead {

  override def name(): String = tableName

  override def schema(): StructType = BatchesTable.Schema

  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = () => {
    val batchRows = BatchesTable.rows(shard.state)
    new LocalScan {
      override def rows(): Array[InternalRow] = batchRows
      override def readSchema(): StructType = BatchesTable.Schema
    }: Scan
  }
}

object BatchesTable {
  val Schema: StructType = StructType(Seq(
    StructField("batch_id", StringType, nullable = false),
    StructField("lower", LongType, nullable = false),
    StructField("upper", LongType, nullable = false),
    StructField("appends", LongType, nullable = false),
    StructField("runs", IntegerType, nullable = false),
    StructField("parts", IntegerType, nullable = false),
    StructField("row_count", LongType, nullable = false),
    StructField("bytes", LongType, nullable = false),
    StructField("min_time", LongType),
    StructField("max_time", LongType),
    StructField("has_retractions", BooleanType, nullable = false),
    StructField("committed_at_ms", LongType, nullable = false),
    StructField("operation", StringType),
    StructField("read_upper", LongType),
    StructField("user_metadata", StringType)))

  def rows(state: ShardState): Array[InternalRow] = state.batches.map { b =>
    val parts = b.parts.toSeq
    def time(f: Seq[Long] => Long, of: Seq[Long]): Any = if (of.isEmpty) null else f(of)
    InternalRow(
      UTF8String.fromString(b.id), b.lower, b.upper, b.appends, b.runs.size, parts.size,
      b.rowCount, b.bytes, time(_.min, parts.map(_.minTime)), time(_.max, parts.map(_.maxTime)),
      b.hasRetractions, b.committedAtMs, b.commit.map(c => UTF8String.fromString(c.operation)).orNull,
      b.commit.flatMap(_.readUpper).map(Long.box).orNull, b.commit.flatMap(_.userMetadata).map(UTF8String.fromString).orNull)
  }.toArray
}
