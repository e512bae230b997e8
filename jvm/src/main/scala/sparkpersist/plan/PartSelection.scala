package sparkpersist.plan

import org.apache.spark.sql.catalyst.expressions.Expression

import sparkpersist.interpret.PartFilter
import sparkpersist.shard.PartMeta

/**
 * Which parts a scan reads, decided on the driver when the scan is built. `decision` gives each
 * part's three-way decision ([[PartFilter.decide]]): ruled out only if no row of the part can make
 * `condition` true or raise; in mode `on` those parts are skipped, in mode `soft` they are read
 * and verified ([[SoftCheck]]), as are the parts proven true (every row must pass).
 */
final case class PartSelection(condition: Option[Expression], mode: PushdownMode, decision: PartMeta => Int,
    among: Option[IndexedSeq[PartMeta] => PartMeta => Int] = None,
    /** The segments of parts the decision met so far, and how many it ruled out whole ([[SegmentSkipping]]). */
    segments: () => (Int, Int) = () => (0, 0)) {

  /** Whether `part` may hold a row for which the condition is true or raises. */
  def admits(part: PartMeta): Boolean = decision(part) != PartFilter.RuledOut

  /**
   * The decision over the candidate `parts` of a scan: `decision`, or a decision made once for
   * them (their segments decided first, [[SegmentSkipping.prepare]]; functions the filter calls
   * evaluated ahead, [[UdfProbes]]).
   */
  def decisionAmong(parts: IndexedSeq[PartMeta]): PartMeta => Int = among.fold(decision)(_(parts))

  /** [[decisionAmong]], as whether each part may hold a row the filter keeps. */
  def admitsAmong(parts: IndexedSeq[PartMeta]): PartMeta => Boolean = {
    val decide = decisionAmong(parts)
    part => decide(part) != PartFilter.RuledOut
  }

  /** Whether the scan reads `part`. */
  def reads(part: PartMeta): Boolean = mode != PushdownMode.On || admits(part)

  /** Whether the scan reads `part` only to check that skipping it would have been sound. */
  def verifies(part: PartMeta): Boolean = mode == PushdownMode.Soft && !admits(part)

  def describe: String = condition match {
    case Some(c) => s"pushdown=${mode.name} filter: ${c.sql}"
    case None => "no filter"
  }
}

object PartSelection {
  /** Read every part (no filter). */
  val All: PartSelection = PartSelection(None, PushdownMode.Off, _ => PartFilter.Undecided)
}
