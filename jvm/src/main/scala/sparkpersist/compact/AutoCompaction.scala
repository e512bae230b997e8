package sparkpersist.compact

import org.apache.spark.sql.classic.SparkSession

import sparkpersist.shard.{BatchMeta, ShardHandle}
import sparkpersist.write.CommitHook

/**
 * Automatic compaction (`spark.sparkpersist.compact.auto=true`): after each committed write, one
 * compaction round of at most `spark.sparkpersist.compact.auto.maxBytes` input, smallest groups
 * first, so each write pays a bounded share of the merging, as persist's compaction does. It runs
 * on the writing driver in the active session (registered as a [[CommitHook]]).
 */
final class AutoCompaction extends CommitHook {
  override def afterCommit(shard: ShardHandle, batch: BatchMeta): Unit =
    SparkSession.getActiveSession.foreach(Lifecycle.afterWrite(_, shard))
}
