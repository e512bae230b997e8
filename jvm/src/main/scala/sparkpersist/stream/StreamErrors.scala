package sparkpersist.stream

import sparkpersist.errors.{PersistError, PersistThrowable}

/**
 * A streaming read cannot continue from its offset: the shard's history before `since` has been
 * compacted (retention moved since past the query's position), so the updates between the
 * offset and since can no longer be told apart from older ones.
 */
final class OffsetBelowSince(val shard: String, val upper: Long, val since: Long, val shardUpper: Long)
  extends IllegalStateException with PersistThrowable {
  override def error: PersistError = PersistError("PERSIST_STREAM_OFFSET_BELOW_SINCE", "shard" -> shard,
    "upper" -> upper, "since" -> since, "startingAsOf" -> StreamReadOptions.StartingAsOf, "latest" -> (shardUpper - 1),
    "retention" -> "spark.sparkpersist.retentionMs")
}

/** A streaming read's checkpoint belongs to another shard of the same name (dropped and created again). */
final class OffsetOfOtherShard(shard: String, checkpointed: String, current: String)
  extends IllegalStateException with PersistThrowable {
  override def error: PersistError = PersistError("PERSIST_STREAM_CHECKPOINT_OF_OTHER_SHARD", "shard" -> shard,
    "checkpointed" -> checkpointed, "current" -> current)
}
