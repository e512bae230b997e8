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
 *    `auto`, by any; [[ClusterSettings.done]]) are merged, consolidated where they hold retractions,
 *    into one clustered batch, however large: one layout over the whole window, so that its parts
 *    do not overlap (groups of `targetBytes` would each cover every column's whole range). A
 *    window whose batches are all clustered is left alone: no write lands in a sealed window.
 *    The open window is laid out only on request ([[ClusterSettings.reclusterBefore]], `cluster => true`):
 *    its batches committed before the request; later ones wait until it seals, and meanwhile its
 *    size tiers never merge a batch clustered on request back into an unclustered run.
 *
 * [[windows]] also says, per window, why it merges what it does or nothing ([[WindowPlan]]): the
 * procedure's result shows it.
 *
 *  - **Aged spans**: small sealed windows merge into aligned spans of `windowMs * fanIn^k` as they
 *    age ([[AgedSpans]]); in a clustered shard a merged span is laid out as one window, and laid out
 *    again alone when the columns change or `cluster => true` asks.
 *
 * Each round's groups are disjoint; merging runs rounds until a plan is empty.
 */
object CompactionPlanner {

  /** The groups of one round: every window's, in the shard's batch order. */
  def plan(state: ShardState, settings: CompactionSettings): Seq[MergeGroup] = windows(state, settings).flatMap(_.groups)

  /** Each window of `state` with the groups this round merges there and why ([[WindowPlan]]), oldest first. */
  def windows(state: ShardState, settings: CompactionSettings): Seq[WindowPlan] = {
    val window = CompactionWindow.of(state, settings.windowMs) _
    val clusterBy = settings.cluster.columns(state.schema)
    lazy val along = clusterBy.flatMap(state.schema.columnById).map(_.name).mkString("(", ", ", ")")
    val spanning = CompactionWindow.spanning(settings.windowMs) _
    val windowed = segments(state.batches, window).map { case (w, batches) =>
      val sealedWindow = w.sealedIn(state)
      val done = settings.cluster.done(_: BatchMeta, state.schema)
      val requested = settings.cluster.reclusterBefore
      if (clusterBy.nonEmpty && !w.settled && (sealedWindow || requested.isDefined)) {
        // In the open window, the batches as they were when the request came; later ones wait until it seals.
        val asked = (b: BatchMeta) => sealedWindow || requested.exists(b.committedAtMs < _)
        val pending = splitWhen(batches)(b => done(b) || !asked(b))
        val groups = pending.map(MergeGroup(_, state.since, clusterBy))
        WindowPlan(w, groups,
          if (groups.isEmpty) s"already clustered by $along"
          else if (sealedWindow) s"sealed: laid out along $along"
          else s"open: laid out along $along on request (cluster => true); batches appended later are laid out when it seals")
      } else {
        // In the open window of a clustered shard, a batch clustered on request is not merged back by tiers.
        val complete = (b: BatchMeta) => b.bytes >= settings.targetBytes || (clusterBy.nonEmpty && !sealedWindow && done(b))
        val belowTarget = splitWhen(batches)(complete)
        val tiered = belowTarget.flatMap(tierGroups(_, settings))
        val packed =
          if (tiered.nonEmpty || !sealedWindow) Nil
          else {
            val packs = belowTarget.flatMap(pack(_, settings.targetBytes)) ++ fragmented(batches, settings)
            if (w.settled) packs ++ unconsolidated(batches, packs, state.since) else packs
          }
        val reason =
          if (clusterBy.nonEmpty && !sealedWindow) s"open: laid out along $along once it seals, or now with cluster => true"
          else if (tiered.nonEmpty) s"${settings.fanIn} batches of one size tier merged"
          else if (packed.nonEmpty && w.settled) "settled below since: packed up to target_bytes and consolidated"
          else if (packed.nonEmpty) "sealed: packed into batches of up to target_bytes"
          else if (sealedWindow) "nothing to do: its batches are packed"
          else s"below the minimum size: fewer than ${settings.fanIn} batches of one size tier"
        WindowPlan(w, (tiered ++ packed).map(MergeGroup(_, state.since)), reason)
      }
    }
    // Batches spanning several windows (aged spans, or writes across a boundary) of a clustered shard, sealed
    // and not laid out along the current columns: laid out again alone, as a window is.
    val relaid = if (clusterBy.isEmpty) Nil else state.batches.collect {
      case b if window(b).isEmpty && !settings.cluster.done(b, state.schema) && spanning(IndexedSeq(b)).sealedIn(state) =>
        WindowPlan(spanning(IndexedSeq(b)), Seq(MergeGroup(IndexedSeq(b), state.since, clusterBy)),
          s"sealed span laid out along other columns: laid out again along $along")
    }
    val planned = windowed ++ relaid
    if (!settings.mergeAged) planned
    else {
      val taken = planned.iterator.flatMap(_.groups).flatMap(_.batches).map(_.id).toSet
      planned ++ AgedSpans.groups(state.batches, state.upper, settings) { b =>
        !taken(b.id) && !window(b).exists(_.settled)
      }.map { g =>
        WindowPlan(spanning(g), Seq(MergeGroup(g, state.since, clusterBy)),
          s"aged: ${g.size} sealed batches below target_bytes merged into one span")
      }
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
  private def segments(batches: IndexedSeq[BatchMeta], windowOf: BatchMeta => Option[CompactionWindow])
      : Seq[(CompactionWindow, IndexedSeq[BatchMeta])] = {
    val out = ArrayBuffer.empty[(CompactionWindow, IndexedSeq[BatchMeta])]
    var current: Option[CompactionWindow] = None
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
