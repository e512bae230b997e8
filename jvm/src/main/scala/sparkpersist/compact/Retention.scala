package sparkpersist.compact

import sparkpersist.shard.ShardState

/** How far retention moves a shard's since. */
object Retention {
  /**
   * The since that keeps `retentionMs` of update time readable below the shard's upper:
   * `upper - retentionMs`, but never above `upper - 1`, so the latest complete time stays
   * readable, and never below the current since (since only moves forward). A shard that holds
   * no complete time yet keeps its since.
   */
  def since(state: ShardState, retentionMs: Long): Long =
    if (state.upper <= 0) state.since
    else math.max(state.since, math.min(state.upper - 1, state.upper - retentionMs))
}
