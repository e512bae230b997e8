package sparkpersist.compact

import scala.collection.mutable.ArrayBuffer

import sparkpersist.shard.{BatchMeta, ShardState}
import sparkpersist.util.NextFit

/**
 * Chooses which adjacent batches a compaction round merges: size-tiered like persist's spine,
 * within time windows. A pure function of the state and the settings.
 *
 *  - **Windows** (the time-span limit): a batch belongs to the aligned window of `windowMs` that
 *    holds all its update times (UTC days by default); only batches of one window are merged, so
 *    a 90-day-old batch never meets today's and each part stays narrow in time. A batch whose
 *    times straddle a window boundary is left as it is. In a shard with retractions, every batch
 *    wholly below since belongs to one window, the *settled* history: there its times collapse
 *    at since and inserts meet their retractions.
 *  - **Tiers**: a batch of `b` bytes is in tier `k`, the largest `k` with `b * fanIn^k < targetBytes`
 *    (tier 0: within a factor fanIn of the target); a batch of `targetBytes` or more is complete
 *    and never rewritten. `fanIn` adjacent batches of one tier and window merge into one, which
 *    lands about one tier up: old large batches are never rewritten together with the newest
 *    small ones, and a byte is rewritten once per tier it climbs.
 *  - **Sealed windows**: once the shard's upper passes a window's end, no write can land in it
 *    any more; when no tier has `fanIn` batches left there, the window's adjacent batches are
 *    packed into batches of at most `targetBytes`; a complete batch written as many runs of small
 *    parts is rewritten alone, once, into one run. The settled history is always sealed, and a
 *    settled batch with retractions not yet consolidated at since is rewritten even alone.
 *
 *  - **Clustering**: in a shard with clustering columns, each sealed window (not the settled
 *    history, which stays one sorted run) is laid out along the curve of those columns once
 *    ([[sparkpersist.cluster]]): its batches not yet clustered by the current columns (with
 *    `auto`, by any; [[ClusterSettings.done]]) are packed into groups of at most `targetBytes` (a single batch
 *    too, however large), each merged, consolidated where it holds retractions, into one clustered
 *    batch. A window whose batches are all clustered is left alone: no write lands in a sealed window.
 *
 *  - **Aged spans**: small sealed windows merge into aligned spans of `windowMs * fanIn^k` as they
 *    age ([[AgedSpans]]); in a clustered shard a merged span is laid out as one window, and laid out
 *    again alone when the columns change or `cluster => true` asks.
 *
 * Each round's groups are disjoint; merging runs rounds until a plan is empty.
 */
object CompactionPlanner {

  private sealed trait Window
  /** The batches of a shard with retractions wholly below since. */
  private case object Settled extends Window
  /** The update times `[index * windowMs, (index + 1) * windowMs)`. */
  private final case class Span(index: Long) extends Window

  def plan(state: ShardState, settings: CompactionSettings): Seq[MergeGroup] = {
    val withRetractions = state.hasRetractions
    def windowOf(b: BatchMeta): Option[Window] =
      if (withRetractions && b.upper <= state.since) Some(Settled)
      else {
        val (lo, hi) = updateTimes(b)
        val first = Math.floorDiv(lo, settings.windowMs)
        if (first == Math.floorDiv(hi, settings.windowMs)) Some(Span(first)) else None
      }
    def sealedWindow(w: Window): Boolean = w match {
      case Settled => true
      case Span(i) => BigInt(i + 1) * settings.windowMs <= state.upper
    }
    val clusterBy = settings.cluster.columns(state.schema)
    val windowed = segments(state.batches, windowOf).flatMap { case (window, batches) =>
      if (clusterBy.nonEmpty && window != Settled && sealedWindow(window)) {
        val pending = splitWhen(batches)(settings.cluster.done(_, state.schema))
        pending.flatMap(NextFit.groups(_, settings.targetBytes)(_.bytes)).map(MergeGroup(_, state.since, clusterBy))
      } else {
        val belowTarget = splitWhen(batches)(_.bytes >= settings.targetBytes)
        val tiered = belowTarget.flatMap(tierGroups(_, settings))
        val groups =
          if (tiered.nonEmpty || !sealedWindow(window)) tiered
          else {
            val packed = belowTarget.flatMap(pack(_, settings.targetBytes)) ++ fragmented(batches, settings)
            if (window == Settled) packed ++ unconsolidated(batches, packed, state.since) else packed
          }
        groups.map(MergeGroup(_, state.since))
      }
    }
    // Batches spanning several windows (aged spans, or writes across a boundary) of a clustered shard, sealed
    // and not laid out along the current columns: laid out again alone, as a window is.
    val relaid = if (clusterBy.isEmpty) Nil else state.batches.filter { b =>
      windowOf(b).isEmpty && !settings.cluster.done(b, state.schema) &&
        BigInt(Math.floorDiv(updateTimes(b)._2, settings.windowMs) + 1) * settings.windowMs <= state.upper
    }.map(b => MergeGroup(IndexedSeq(b), state.since, clusterBy))
    val planned = windowed ++ relaid
    if (!settings.mergeAged) planned
    else {
      val taken = planned.iterator.flatMap(_.batches).map(_.id).toSet
      planned ++ AgedSpans.groups(state.batches, state.upper, settings) { b =>
        !taken(b.id) && !windowOf(b).contains(Settled)
      }.map(MergeGroup(_, state.since, clusterBy))
    }
  }

  /** The update times a batch holds, lowest and highest: its parts', or `[lower, upper - 1]` when it has none. */
  def updateTimes(b: BatchMeta): (Long, Long) = {
    val parts = b.parts.toSeq
    if (parts.isEmpty) (b.lower, b.upper - 1) else (parts.map(_.minTime).min, parts.map(_.maxTime).max)
  }

  /**
   * Complete batches written as many small runs (one append of thousands of tasks, each writing a
   * part far below the target): rewritten alone, once, into one sorted run of full parts, after
   * which they are one run and left alone. Clustered batches keep their layout.
   */
  private def fragmented(batches: IndexedSeq[BatchMeta], settings: CompactionSettings): Seq[IndexedSeq[BatchMeta]] =
    batches.filter { b =>
      b.bytes >= settings.targetBytes && b.runs.size > 1 && b.clusteredBy.isEmpty &&
        b.bytes / b.partCount < settings.targetBytes / settings.fanIn / settings.fanIn
    }.map(IndexedSeq(_))

  /** The tier of a batch below the target: the largest k with `bytes * fanIn^k < targetBytes`. */
  def tier(bytes: Long, settings: CompactionSettings): Int = {
    var b = math.max(bytes, 1L)
    var k = 0
    while (b <= (settings.targetBytes - 1) / settings.fanIn) {
      b *= settings.fanIn
      k += 1
    }
    k
  }

  /** Maximal runs of adjacent batches sharing a window (batches without one are left out). */
  private def segments(batches: IndexedSeq[BatchMeta], windowOf: BatchMeta => Option[Window])
      : Seq[(Window, IndexedSeq[BatchMeta])] = {
    val out = ArrayBuffer.empty[(Window, IndexedSeq[BatchMeta])]
    var current: Option[Window] = None
    val run = ArrayBuffer.empty[BatchMeta]
    def close(): Unit = {
      current.foreach(w => if (run.nonEmpty) out += (w -> run.toIndexedSeq))
      run.clear()
    }
    batches.foreach { b =>
      val w = windowOf(b)
      if (w != current) {
        close()
        current = w
      }
      if (w.isDefined) run += b
    }
    close()
    out.toSeq
  }

  /** `fanIn` adjacent batches of one tier, oldest first; fewer than `fanIn` wait for more. */
  private def tierGroups(batches: IndexedSeq[BatchMeta], settings: CompactionSettings): Seq[IndexedSeq[BatchMeta]] =
    sameTierRuns(batches, settings).flatMap(_.grouped(settings.fanIn).filter(_.size == settings.fanIn))

  private def sameTierRuns(batches: IndexedSeq[BatchMeta], settings: CompactionSettings): Seq[IndexedSeq[BatchMeta]] = {
    val out = ArrayBuffer.empty[IndexedSeq[BatchMeta]]
    var start = 0
    while (start < batches.size) {
      val t = tier(batches(start).bytes, settings)
      var end = start + 1
      while (end < batches.size && tier(batches(end).bytes, settings) == t) end += 1
      out += batches.slice(start, end)
      start = end
    }
    out.toSeq
  }

  /** Adjacent batches packed oldest first into groups of at most `targetBytes`; single batches stay. */
  private def pack(batches: IndexedSeq[BatchMeta], targetBytes: Long): Seq[IndexedSeq[BatchMeta]] =
    NextFit.groups(batches, targetBytes)(_.bytes).filter(_.size >= 2)

  /** Settled batches with retractions whose times are not yet advanced to since, not grouped otherwise. */
  private def unconsolidated(batches: IndexedSeq[BatchMeta], grouped: Seq[IndexedSeq[BatchMeta]],
      since: Long): Seq[IndexedSeq[BatchMeta]] = {
    val taken = grouped.flatten.map(_.id).toSet
    batches.filter { b =>
      !taken(b.id) && b.hasRetractions && b.parts.exists(_.minTime < math.min(since, b.upper - 1))
    }.map(IndexedSeq(_))
  }

  /** The runs of adjacent batches between the `separator` batches. */
  private def splitWhen(batches: IndexedSeq[BatchMeta])(separator: BatchMeta => Boolean): Seq[IndexedSeq[BatchMeta]] = {
    val out = ArrayBuffer.empty[IndexedSeq[BatchMeta]]
    val run = ArrayBuffer.empty[BatchMeta]
    batches.foreach { b =>
      if (separator(b)) {
        if (run.nonEmpty) out += run.toIndexedSeq
        run.clear()
      } else run += b
    }
    if (run.nonEmpty) out += run.toIndexedSeq
    out.toSeq
  }
}
