package sparkpersist.compact

import sparkpersist.shard.{BatchMeta, ShardState}

/**
 * A window compaction merges within ([[CompactionPlanner]]): the update times `[start, start + windowMs)`,
 * or, in a shard with retractions, the settled history (`start` None): every batch wholly below since,
 * whose times collapse at since.
 */
final case class CompactionWindow(start: Option[Long], windowMs: Long) {
  def settled: Boolean = start.isEmpty

  /** The window's end (exclusive): since of `state` for the settled history. */
  def end(state: ShardState): Long = start.fold(state.since)(_ + windowMs)

  /** Whether no write can land in it any more: the shard's upper has passed its end (the settled history always). */
  def sealedIn(state: ShardState): Boolean = start.forall(s => BigInt(s) + windowMs <= state.upper)
}

object CompactionWindow {
  /** The window holding all of `batch`'s update times in `state`; None for a batch straddling a boundary. */
  def of(state: ShardState, windowMs: Long)(batch: BatchMeta): Option[CompactionWindow] =
    if (state.hasRetractions && batch.upper <= state.since) Some(CompactionWindow(None, windowMs))
    else {
      val (lo, hi) = CompactionPlanner.updateTimes(batch)
      val first = Math.floorDiv(lo, windowMs)
      if (first == Math.floorDiv(hi, windowMs)) Some(CompactionWindow(Some(first * windowMs), windowMs)) else None
    }

  /**
   * The windows of `windowMs` that `batches`' update times meet, from the first to the last, as one
   * window (an aged span, or a batch across a boundary).
   */
  def spanning(windowMs: Long)(batches: IndexedSeq[BatchMeta]): CompactionWindow = {
    val times = batches.map(CompactionPlanner.updateTimes)
    val start = Math.floorDiv(times.map(_._1).min, windowMs) * windowMs
    val end = (Math.floorDiv(times.map(_._2).max, windowMs) + 1) * windowMs
    CompactionWindow(Some(start), end - start)
  }
}

/**
 * What one compaction round plans in one window: the groups it merges there (none: it leaves the
 * window as it is) and why, in words a user reads in the procedure's result.
 */
final case class WindowPlan(window: CompactionWindow, groups: Seq[MergeGroup], reason: String)
