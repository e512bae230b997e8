package sparkpersist.stream

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.datasources.v2.StreamingDataSourceV2ScanRelation

/** The micro-batches of shard streams a plan (one micro-batch of a streaming query) reads. */
object ShardStreamRead {
  /** The as-of (end offset - 1) of each shard stream the micro-batch `plan` reads. */
  def asOfs(plan: LogicalPlan): Seq[Long] = plan.collect {
    case r: StreamingDataSourceV2ScanRelation if r.stream.isInstanceOf[ShardMicroBatchStream] =>
      r.endOffset.collect { case o: ShardOffset if o.upper.isDefined => o.asOf }
  }.flatten
}
