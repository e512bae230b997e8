package sparkpersist.stream

/**
 * A streaming read cannot continue from its offset: the shard's history before `since` has been
 * compacted (retention moved since past the query's position), so the updates between the
 * offset and since can no longer be told apart from older ones.
 */
final class OffsetBelowSince(val shard: String, val upper: Long, val since: Long, val shardUpper: Long)
  extends IllegalStateException(
    s"Cannot continue streaming shard '$shard' from its checkpointed offset (upper = $upper): its history " +
      s"up to since = $since has been compacted, so the updates from time $upper on can no longer be told apart " +
      s"from earlier ones. Restart the query with a fresh checkpoint location: its first micro-batch is the snapshot as " +
      s"of the latest time, or as of option ${StreamReadOptions.StartingAsOf} = t for a t in [$since, " +
      s"${shardUpper - 1}]. To avoid this, keep the shard's retention (spark.sparkpersist.retentionMs) longer " +
      "than a query may lag or stay stopped.")

/** A streaming read's checkpoint belongs to another shard of the same name (dropped and created again). */
final class OffsetOfOtherShard(shard: String, checkpointed: String, current: String)
  extends IllegalStateException(
    s"The checkpoint of this streaming read of shard '$shard' was written for shard id $checkpointed, but " +
      s"'$shard' is now shard id $current (it was dropped and created again). Restart the query with a fresh " +
      "checkpoint location.")
