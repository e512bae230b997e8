package sparkpersist.compact

import sparkpersist.shard.ShardState

/** How far retention moves a shard's since. */
object Retention {
  /**
   * The since that keeps `retentionMs` of update time readable below the shard's upper:
   * `upper - retentionMs`, never below the current since (since only moves forward) nor above
   * the upper. A shard that holds no complete time yet keeps its since.
   */
  def since(state: ShardState, retentionMs: Long): Long =
    if (state.upper <= 0) state.since
    else math.max(state.since, math.min(state.upper, state.upper - retentionMs))
}
