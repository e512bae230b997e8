package sparkpersist.plan

import org.apache.spark.sql.catalyst.expressions.Expression

import sparkpersist.interpret.PartDecision
import sparkpersist.shard.PartMeta

/**
 * How a scan decides its parts: the condition, the pushdown mode, and the decision over a list
 * of candidate parts, made once for them ([[decideAmong]]): ruled out only if no row of a part can
 * make `condition` true or raise; in mode `on` those parts are skipped, in mode `soft` they are
 * read and verified ([[SoftCheck]]), as are the parts proven true (every row must pass).
 *
 * @param among the decision of each of the given parts, prepared for them (their segments decided
 *              first, [[SegmentSkipping.prepare]]; functions the filter calls evaluated ahead,
 *              [[UdfProbes]])
 * @param segments the segments of parts the decision met, and how many it ruled out whole
 */
final case class PartSelection(condition: Option[Expression], mode: PushdownMode,
    among: IndexedSeq[PartMeta] => PartMeta => PartDecision,
    segments: () => (Int, Int) = () => (0, 0)) {

  /** The decision of each of `parts`, made once, in parallel from `parallelFrom` parts on ([[PartDecisions]]). */
  def decideAmong(parts: IndexedSeq[PartMeta], parallelFrom: Long): PartDecisions =
    if (condition.isEmpty) PartDecisions.undecided(parts.size)
    else {
      val decision = among(parts)
      PartDecisions.decide(parts.size, i => decision(parts(i)), parallelFrom)
    }

  def describe: String = condition match {
    case Some(c) => s"pushdown=${mode.name} filter: ${c.sql}"
    case None => "no filter"
  }
}

object PartSelection {
  /** Read every part (no filter). */
  val All: PartSelection = PartSelection(None, PushdownMode.Off, _ => _ => PartDecision.Undecided)
}
