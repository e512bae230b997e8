package sparkpersist.compact

import sparkpersist.shard.{BatchMeta, BatchReplacement, CommitInfo, RunMeta, StreamEpoch}

/**
 * Adjacent batches that one task merges into one batch of one sorted run, at the shard's
 * `since`. The new batch spans `[lower, upper)` of the batches it replaces, so the shard's batches
 * stay contiguous.
 *
 * Consolidation at since (seed 003) is clamped into the group: every time below
 * [[advanceTo]] = `min(since, upper - 1)` becomes `advanceTo`. A read as of any `t >= since` sees
 * an update at time `u` exactly when it sees it at `max(u, advanceTo)` (both are `<= t` once
 * `u < since`), and the new batch keeps `lower <= time < upper`. A group below since thus
 * collapses to one time, `upper - 1`, where inserts and their retractions meet and cancel.
 *
 * `clusterBy` (column ids) makes the merged batch a clustered one ([[sparkpersist.cluster]]): its
 * rows laid out along the curve of those columns, one run per part. Empty: one sorted run.
 */
final case class MergeGroup(batches: IndexedSeq[BatchMeta], since: Long, clusterBy: IndexedSeq[Int] = IndexedSeq.empty) {
  require(batches.nonEmpty, "a merge group holds at least one batch")

  def lower: Long = batches.head.lower
  def upper: Long = batches.last.upper
  def bytes: Long = batches.iterator.map(_.bytes).sum
  def rows: Long = batches.iterator.map(_.rowCount).sum
  def appends: Long = batches.iterator.map(_.appends).sum

  /** Times below this are advanced to it. */
  def advanceTo: Long = math.min(since, upper - 1)

  /**
   * Whether updates of equal data and time are summed and zero sums dropped: only where there
   * are retractions to cancel. Summing equal inserts would turn diff-1 parts into parts with
   * multiplicities, which snapshot reads then have to consolidate in one task.
   */
  def consolidates: Boolean = batches.exists(_.hasRetractions)

  /**
   * The one time of every update of the merged run, when it is known up front (no retractions,
   * and all times equal once advanced): its parts are then stamped, holding the data columns only.
   */
  def stampTime: Option[Long] =
    if (consolidates) None
    else {
      val times = batches.flatMap(_.parts).flatMap(p => Seq(p.minTime, p.maxTime)).map(math.max(_, advanceTo)).distinct
      if (times.size == 1) times.headOption else None
    }

  /**
   * The batch replacing this group: `id`, holding `runs`. It keeps the newest streaming epoch of
   * each query that wrote the group, so a replayed epoch is still recognised after the merge.
   */
  def replacement(id: String, runs: IndexedSeq[RunMeta], committedAtMs: Long, info: CommitInfo): BatchReplacement =
    BatchReplacement(batches.map(_.id),
      BatchMeta(id, lower, upper, runs, committedAtMs, appends, StreamEpoch.newest(batches.flatMap(_.epochs)), clusterBy,
        Some(info)))
}
