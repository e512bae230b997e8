package sparkpersist.plan

import java.util.concurrent.ConcurrentHashMap

import sparkpersist.interpret.{PartDecision, PartFilter}
import sparkpersist.shard.PartMeta
import sparkpersist.stats.{EncodedColumns, PartStats, StatsSegment}

/**
 * The part decision of one scan over parts read from a columnar rollup: each segment of parts
 * is decided once, on its summary ([[StatsSegment]]), and a part is decided on its own stats only
 * if its segment's summary is undecided. `decide` must be sound for any stats (the three-way
 * decision of [[PartFilter.decide]]); the summary admits every row of every part of its segment,
 * so a segment it rules out holds no part it would keep, and a segment proven true no part on
 * which the filter may fail to hold: the parts of a decided segment are never decoded. Parts
 * without a segment are decided one by one. Thread-safe (parts may be decided in parallel,
 * [[PartDecisions]]).
 */
final class SegmentSkipping(decide: PartStats => PartDecision) {
  /** Each segment's decision; parts of many threads read it without writing (no shared cache line written per part). */
  private val decided = new ConcurrentHashMap[StatsSegment, PartDecision]()

  /**
   * Decides the segments of `parts` on their summaries, before any part is decided, and tells
   * the rollup the parts of the kept segments will be read ([[EncodedColumns.want]]): their
   * columns' stats bytes are then loaded for those segments only, not for every part. Parts
   * without a segment are left to [[admits]]. One pass over the parts, touching each part's
   * stats once (a million parts in a few milliseconds).
   */
  def prepare(parts: IndexedSeq[PartMeta]): Unit = {
    var last: StatsSegment = null
    var i = 0
    while (i < parts.size) {
      parts(i).stats match {
        case Some(PartStats(_, _, e: EncodedColumns, _)) => e.segment match {
          case Some(segment) if !(segment eq last) =>
            if (segmentDecision(segment) == PartDecision.Undecided) e.want()
            last = segment
          case _ =>
        }
        case _ =>
      }
      i += 1
    }
  }

  /** Whether a part with these stats may hold a row the filter keeps. */
  def admits(stats: PartStats): Boolean = decision(stats).admits

  /** The three-way decision ([[PartFilter.decide]]) of a part with these stats. */
  def decision(stats: PartStats): PartDecision = StatsSegment.of(stats) match {
    case Some(segment) =>
      val whole = segmentDecision(segment)
      if (whole != PartDecision.Undecided) whole else decide(stats)
    case None => decide(stats)
  }

  /** How many segments this decision met, and how many of them it ruled out whole. */
  def segments: (Int, Int) = {
    var ruledOut = 0
    decided.values().forEach(d => if (d == PartDecision.RuledOut) ruledOut += 1)
    (decided.size(), ruledOut)
  }

  private def segmentDecision(segment: StatsSegment): PartDecision = {
    val known = decided.get(segment)
    if (known != null) known else decided.computeIfAbsent(segment, s => decide(s.summary))
  }
}
