package sparkpersist.consolidate

import java.util.PriorityQueue

import sparkpersist.interpret.ValueOrdering
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.PartMeta

/**
 * Runs joined end to end where a merge can read them as one: a [[RunMerge]] keeps one part open
 * per run, so a batch written by ten thousand tasks (ten thousand runs) would hold ten thousand
 * files open in every consolidation task. A run whose merge keys all lie above every merge key of
 * another can follow it in one cursor, the pair still in merge-key order; runs are chained so, in
 * as few chains as their overlaps allow (the greedy interval colouring, by lower bound: the
 * number of chains is the most runs any key lies in), and a merge holds one part per chain.
 *
 * Spans come from the statistics of the merge key's first column: a run goes after a chain only if
 * the chain's upper bound is strictly below the run's lower bound, so every key of the run is
 * above every key of the chain whatever the other key columns hold. Truncated bounds stay sound
 * (a prefix below, a bumped prefix above). A run with a part that may hold a null in that column or
 * lacks bounds stays a chain of its own. A shard without an order key merges all its updates as
 * one key, in any order, when consolidating on read: its runs form one chain. Compaction merges by
 * the order key, then time (`timeKeyed`): there a shard without an order key chains its runs by
 * their parts' times, as by a first key column (a clustered window's runs each span the window's
 * times, so they overlap). [[RunMerge]] still checks the order as it reads, so a chain out of order
 * fails loudly ([[UnsortedRun]]), never mis-merges.
 */
object RunChains {

  def apply(runs: IndexedSeq[IndexedSeq[PartMeta]], schema: ShardSchema,
      timeKeyed: Boolean = false): IndexedSeq[IndexedSeq[PartMeta]] =
    schema.orderBy.headOption.flatMap(schema.column) match {
      case None if timeKeyed =>
        byBounds(runs, runs.map(r => Some((r.map(_.minTime).min: Any, r.map(_.maxTime).max: Any))), TimeOrdering)
      case None => if (runs.size <= 1) runs else IndexedSeq(runs.flatten)
      case Some(column) => ValueOrdering.of(column.dataType) match {
        case None => runs
        case Some(ordering) => byBounds(runs, runs.map(r => span(r.map(KeySpan.of(_, column)), ordering)), ordering)
      }
    }

  private val TimeOrdering: Ordering[Any] = Ordering.by[Any, Long](_.asInstanceOf[Long])

  /** Runs chained by their `spans` (none: a chain of its own), chains in the order of their first run, as written. */
  private def byBounds(runs: IndexedSeq[IndexedSeq[PartMeta]], spans: IndexedSeq[Option[(Any, Any)]],
      ordering: Ordering[Any]): IndexedSeq[IndexedSeq[PartMeta]] = {
    val (bounded, alone) = spans.zipWithIndex.partition(_._1.isDefined)
    (chained(bounded.map { case (s, i) => (i, s.get) }, ordering) ++ alone.map(a => Seq(a._2)))
      .sortBy(_.min).map(_.flatMap(runs).toIndexedSeq).toIndexedSeq
  }

  /** The bounds of every key of a run, if every part has them and holds no null. */
  private def span(parts: Seq[KeySpan], ordering: Ordering[Any]): Option[(Any, Any)] =
    if (parts.exists(s => s.nulls || (s.values && (s.lower.isEmpty || s.upper.isEmpty)))) None
    else {
      val valued = parts.filter(_.values)
      if (valued.isEmpty) None
      else Some((valued.map(_.lower.get).min(ordering), valued.map(_.upper.get).max(ordering)))
    }

  /** Runs (by position) joined so far, and the upper bound of the last. */
  private final class Chain(val runs: scala.collection.mutable.ArrayBuffer[Int], var upper: Any)

  /** The positions of `runs` (position, (lower, upper)) in chains, each chain in key order. */
  private def chained(runs: IndexedSeq[(Int, (Any, Any))], ordering: Ordering[Any]): Seq[Seq[Int]] = {
    val ends = new PriorityQueue[Chain](math.max(1, runs.size), (a: Chain, b: Chain) => ordering.compare(a.upper, b.upper))
    val chains = scala.collection.mutable.ArrayBuffer.empty[Chain]
    runs.sortWith((a, b) => ordering.lt(a._2._1, b._2._1)).foreach { case (run, (lower, upper)) =>
      val chain =
        if (!ends.isEmpty && ordering.lt(ends.peek().upper, lower)) ends.poll()
        else { val c = new Chain(scala.collection.mutable.ArrayBuffer.empty, upper); chains += c; c }
      chain.runs += run
      chain.upper = upper
      ends.add(chain)
    }
    chains.map(_.runs.toSeq).toSeq
  }
}
