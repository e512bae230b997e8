package sparkpersist.compact

import scala.collection.mutable

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema
import org.apache.spark.sql.types.{ArrayType, IntegerType, LongType, StringType, StructField, StructType}

import sparkpersist.shard.ShardState

/**
 * What one compaction did in one window, and why: a row of its result's `windows`.
 *
 * @param start  the window's first update time (ms); None for the settled history below since
 * @param end    the window's end (exclusive), since for the settled history
 * @param action [[WindowOutcome.Clustered]], [[WindowOutcome.Merged]] or [[WindowOutcome.Untouched]]
 * @param reason why, in words: the window open or sealed, already clustered, below the minimum size...
 */
final case class WindowOutcome(start: Option[Long], end: Long, action: String, reason: String, partsBefore: Int,
    partsAfter: Int) {
  /** The row of the result's `windows`, with its schema (py4j hands it to Python as a dict). */
  def toRow: Row = new GenericRowWithSchema(Array(start.map(Long.box).orNull, end, action, reason, partsBefore, partsAfter),
    WindowOutcome.rowType)
}

object WindowOutcome {
  /** Laid out along the clustering columns' curve (a sealed window, or the open one on request). */
  val Clustered = "clustered"
  /** Batches merged into sorted runs (size-tiered, packed, consolidated at since). */
  val Merged = "merged"
  /** Left as it was. */
  val Untouched = "none"

  private val rank = Map(Untouched -> 0, Merged -> 1, Clustered -> 2)

  /** One window's row. */
  val rowType: StructType = StructType(Seq(
    StructField("start", LongType), StructField("end", LongType, nullable = false),
    StructField("action", StringType, nullable = false), StructField("reason", StringType, nullable = false),
    StructField("parts_before", IntegerType, nullable = false), StructField("parts_after", IntegerType, nullable = false)))

  /** The type of the result's `windows` column: one struct per window. */
  val dataType: ArrayType = ArrayType(rowType, containsNull = false)

  /** Whether action `a` says more than `b` of one window over a compaction's rounds (clustered, merged, none). */
  private[compact] def stronger(a: String, b: String): Boolean = rank(a) > rank(b)
}

/**
 * The windows of one compaction over its rounds: each round's plans ([[CompactionPlanner.windows]])
 * and the groups it ran. A window keeps its strongest action (clustered over merged over none) with
 * that round's reason; a window left alone keeps the newest round's reason.
 */
private[compact] final class WindowReport(windowMs: Long) {
  private val seen = mutable.LinkedHashMap.empty[CompactionWindow, (String, String)]

  def round(plans: Seq[WindowPlan], ran: Seq[MergeGroup]): Unit = {
    val running = ran.toSet
    plans.foreach { p =>
      val groups = p.groups.filter(running)
      val action =
        if (groups.isEmpty) WindowOutcome.Untouched
        else if (groups.exists(_.clusterBy.nonEmpty)) WindowOutcome.Clustered
        else WindowOutcome.Merged
      val reason = if (groups.isEmpty && p.groups.nonEmpty) s"not this time (the compaction's byte budget): ${p.reason}" else p.reason
      val replaces = seen.get(p.window).forall { case (earlier, _) =>
        earlier == WindowOutcome.Untouched || WindowOutcome.stronger(action, earlier)
      }
      if (replaces) seen(p.window) = (action, reason)
    }
  }

  /** One outcome per window, oldest first (the settled history first, a span after its first window), with its parts before and after. */
  def outcomes(before: ShardState, after: ShardState): Seq[WindowOutcome] = {
    val partsBefore = parts(before)
    val partsAfter = parts(after)
    seen.toSeq.sortBy { case (w, _) => (w.start.getOrElse(Long.MinValue), w.windowMs) }.map { case (w, (action, reason)) =>
      WindowOutcome(w.start, w.end(after), action, reason, partsBefore(w), partsAfter(w))
    }
  }

  /**
   * The parts of `state` in each window: a window of `windowMs` counts the batches wholly inside it,
   * a wider one (an aged span) every batch wholly inside its range.
   */
  private def parts(state: ShardState): CompactionWindow => Int = {
    val byWindow = state.batches.groupBy(CompactionWindow.of(state, windowMs)).collect {
      case (Some(w), batches) => w -> batches.map(_.partCount).sum
    }
    val times = state.batches.map(b => CompactionPlanner.updateTimes(b) -> b.partCount)
    w => w.start match {
      case Some(start) if w.windowMs > windowMs =>
        times.collect { case ((lo, hi), n) if lo >= start && hi < start + w.windowMs => n }.sum
      case _ => byWindow.getOrElse(w, 0)
    }
  }
}
