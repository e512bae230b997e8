package sparkpersist.catalog

import java.util

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{LocalScan, Scan, ScanBuilder, SupportsPushDownLimit}
import org.apache.spark.sql.types._
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.iceberg.{IcebergHistory, IcebergShown}
import sparkpersist.shard.{ShardHandle, VersionEntry}

/**
 * `persist.<shard>.history` (and `DESCRIBE HISTORY`): one row per state version the log still holds,
 * newest first, with the columns of Delta Lake's `DESCRIBE HISTORY` that a shard has
 * ([[sparkpersist.shard.VersionRecord]]): `version`, `timestamp`, `userName`, `operation`,
 * `operationParameters`, `operationMetrics` (as text, as Delta's), `userMetadata`, `engineInfo`,
 * `isBlindAppend`, `readVersion` (the state version a statement read), and persist's own `readUpper`
 * (the upper of the state it read) and
 * `appId` (the Spark application), and for a shard with Iceberg metadata `icebergSnapshotId`, the Iceberg
 * snapshot showing the version, or null and `icebergNote`, why none does ([[IcebergHistory]]). A version written before records came shows what its change
 * says (operation, parameters and what it added; for a compaction, the batches it removed) and null
 * for the rest, its timestamp its file's modification time. Versions garbage collection deleted
 * have no row: the history starts again at the oldest version kept (version 0, the create, stays).
 */
final class HistoryTable(shard: ShardHandle, tableName: String) extends Table with SupportsRead {

  override def name(): String = tableName

  override def schema(): StructType = HistoryTable.Schema

  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)

  /** Rows newest first: a `LIMIT n` is handed to the scan, which then reads only the newest `n` versions. */
  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = new ScanBuilder with SupportsPushDownLimit {
    private var limit = Int.MaxValue

    override def pushLimit(n: Int): Boolean = {
      limit = n
      false // Spark still applies it
    }

    override def build(): Scan = {
      val entries = shard.log.history(limit)
      val iceberg = IcebergHistory.of(shard, entries.map(_.seqNo))
      val historyRows = entries.map(e => HistoryTable.row(e, iceberg.map(_(e.seqNo)))).toArray
      new LocalScan {
        override def rows(): Array[InternalRow] = historyRows
        override def readSchema(): StructType = HistoryTable.Schema
      }
    }
  }
}

object HistoryTable {
  val Schema: StructType = StructType(Seq(
    StructField("version", LongType, nullable = false),
    StructField("timestamp", TimestampType, nullable = false),
    StructField("userName", StringType),
    StructField("operation", StringType, nullable = false),
    StructField("operationParameters", MapType(StringType, StringType, valueContainsNull = false), nullable = false),
    StructField("operationMetrics", MapType(StringType, StringType, valueContainsNull = false), nullable = false),
    StructField("userMetadata", StringType),
    StructField("engineInfo", StringType),
    StructField("isBlindAppend", BooleanType, nullable = false),
    StructField("readVersion", LongType),
    StructField("readUpper", LongType),
    StructField("appId", StringType),
    StructField("icebergSnapshotId", LongType),
    StructField("icebergNote", StringType)))

  private def row(entry: VersionEntry, iceberg: Option[IcebergShown]): InternalRow = {
    val r = entry.record
    def text(s: Option[String]) = s.map(UTF8String.fromString).orNull
    def map(m: Iterable[(String, String)]) = ArrayBasedMapData(
      m.map(kv => UTF8String.fromString(kv._1)).toArray, m.map(kv => UTF8String.fromString(kv._2)).toArray)
    InternalRow(entry.seqNo, Math.multiplyExact(entry.timestampMs, 1000L), text(r.userName),
      UTF8String.fromString(r.operation), map(r.parameters), map(r.metrics.map { case (k, v) => k -> v.toString }),
      text(r.userMetadata), text(r.engineInfo), r.isBlindAppend, r.readVersion.map(Long.box).orNull,
      r.readUpper.map(Long.box).orNull, text(r.appId), iceberg.flatMap(_.snapshotId).map(Long.box).orNull,
      text(iceberg.flatMap(_.note)))
  }
}
