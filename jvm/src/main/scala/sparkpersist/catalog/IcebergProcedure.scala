package sparkpersist.catalog

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.iceberg.IcebergSyncQueue
import sparkpersist.shard.ShardStore

/**
 * `CALL persist.system.iceberg(shard => 'events')`: writes, or brings up to date, the Iceberg metadata
 * of a shard ([[sparkpersist.iceberg.IcebergSync]]), whether or not its table property `sparkpersist.iceberg` is on, once the
 * shard's pending background syncs are done (so its result is current). One row:
 * the shard version the newest Iceberg snapshot shows, that snapshot, the metadata file, the data and
 * delete files it reads, the snapshots this call wrote, and why it does not show the shard's newest
 * version (null when it does).
 */
private[catalog] final class IcebergProcedure(store: ShardStore) extends RowsProcedure("iceberg",
    "Writes or brings up to date the Iceberg metadata of a persist shard (one Iceberg snapshot per shard version).") {

  private val schema = StructType(Seq(
    StructField("shard_version", LongType), StructField("snapshot_id", LongType),
    StructField("metadata_location", StringType, nullable = false), StructField("data_files", LongType, nullable = false),
    StructField("delete_files", LongType, nullable = false), StructField("snapshots_written", IntegerType, nullable = false),
    StructField("note", StringType)))

  override def parameters(): Array[ProcedureParameter] = Array(ProcedureParameter.in("shard", StringType).build())

  override def result(input: InternalRow): (StructType, Array[InternalRow]) = {
    val s = IcebergSyncQueue.syncNow(SparkSession.active.asInstanceOf[org.apache.spark.sql.classic.SparkSession],
      store.open(input.getUTF8String(0).toString))
    (schema, Array(InternalRow(s.shardVersion.map(Long.box).orNull, s.snapshotId.map(Long.box).orNull,
      UTF8String.fromString(s.metadataLocation), s.dataFiles, s.deleteFiles, s.snapshotsWritten,
      s.note.map(UTF8String.fromString).orNull)))
  }
}
