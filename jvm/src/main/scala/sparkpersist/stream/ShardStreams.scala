package sparkpersist.stream

import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.connector.write.LogicalWriteInfo
import org.apache.spark.sql.connector.write.streaming.StreamingWrite
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.plan.{ScanRequest, TableView}
import sparkpersist.scan.MicroBatchStreams
import sparkpersist.shard.{ShardHandle, ShardState}
import sparkpersist.write.StreamingWrites

/** The streaming reads and writes of shards, as the tables of `catalog` and `scan` and the writer of `write` find them (ServiceLoader). */
final class ShardStreams extends MicroBatchStreams with StreamingWrites {
  override def open(shard: ShardHandle, view: TableView, schema: StructType, request: ScanRequest,
      options: CaseInsensitiveStringMap): MicroBatchStream =
    ShardMicroBatchStream(shard, view, schema, request, options)

  override def open(shard: ShardHandle, state: ShardState, info: LogicalWriteInfo, updates: Boolean): StreamingWrite =
    new ShardStreamingWrite(shard, state, info, updates)
}
