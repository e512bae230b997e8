package sparkpersist.compact

import sparkpersist.shard.BatchMeta

/**
 * Small sealed windows merged as they age: the *aged spans* of update time, growing
 * geometrically. The span of level `k` is an aligned range of `windowMs * fanIn^k` ms (level 0:
 * the time windows of [[CompactionPlanner]], a UTC day by default; level 1: 8 days; level 2: 64
 * days; ...). A span of level `k + 1` is merged into one batch once
 *
 *  - it is sealed (the shard's upper passed its end: no write lands in it any more),
 *  - each of its `fanIn` children (its spans of level `k`) holds at most one batch wholly inside
 *    it, so the children are finished (a day packed into one batch, 8 days merged into one, ...)
 *    and a group holds at most `2 * fanIn - 1` batches (batches straddling children's boundaries
 *    included),
 *  - it holds at least two batches, of at most `targetBytes` together,
 *  - none of them is taken by the round otherwise (`free`: a window's own groups, the settled
 *    history).
 *
 * The merged batch covers one contiguous range of time inside the span, so time filters keep
 * pruning whole parts, and a 7-day window meets at most the one span its start falls in besides
 * its own days. Each byte is rewritten once per level it climbs, and a merged span is left alone
 * until its parent is merged (incremental). A span whose batches hold more than `targetBytes`
 * stays as its children are, so large windows are never merged. Retractions consolidate as in any
 * group; in a clustered shard the merged span is laid out along the curve as one window.
 */
private[compact] object AgedSpans {

  /** Groups of adjacent batches, one per aged span ready to merge, oldest first; disjoint across levels. */
  def groups(batches: IndexedSeq[BatchMeta], upper: Long, settings: CompactionSettings)(free: BatchMeta => Boolean)
      : Seq[IndexedSeq[BatchMeta]] = {
    val times = batches.map(CompactionPlanner.updateTimes)
    // Levels 1, 2, ... while the spans of the level below still split the batches (and within a Long):
    // once one span holds them all, no span above it has children of at most one batch.
    val lengths = Iterator.iterate(BigInt(settings.windowMs) * settings.fanIn)(_ * settings.fanIn)
      .takeWhile(_ <= Long.MaxValue).map(_.toLong)
    val levels = lengths.takeWhile(length => spans(times, length / settings.fanIn).distinct.size > 1)
    levels.flatMap { length =>
      val inSpan = batches.indices.zip(spans(times, length)).collect { case (i, Some(span)) => span -> i }
        .groupMap(_._1)(_._2)
      inSpan.toSeq.sortBy(_._1).collect {
        case (span, indices) if indices.size >= 2 &&
          ready(span, length, indices.map(times), indices.map(batches), upper, settings, free) => indices.map(batches)
      }
    }.toSeq
  }

  /** The span of `length` holding all of each batch's update times (None: it straddles two). */
  private def spans(times: IndexedSeq[(Long, Long)], length: Long): IndexedSeq[Option[Long]] =
    times.map { case (lo, hi) =>
      val span = Math.floorDiv(lo, length)
      if (span == Math.floorDiv(hi, length)) Some(span) else None
    }

  private def ready(span: Long, length: Long, times: IndexedSeq[(Long, Long)], members: IndexedSeq[BatchMeta],
      upper: Long, settings: CompactionSettings, free: BatchMeta => Boolean): Boolean = {
    val inChildren = spans(times, length / settings.fanIn).flatten
    (BigInt(span) + 1) * length <= upper && inChildren.distinct.size == inChildren.size &&
      members.forall(free) && members.iterator.map(_.bytes).sum <= settings.targetBytes
  }
}
