package sparkpersist.plan

import org.apache.spark.sql.catalyst.expressions.Expression

import sparkpersist.shard.PartMeta

/**
 * Which parts a scan reads, decided on the driver when the scan is built. `admits` must return
 * true for every part that may hold a row for which `condition` is true or raises; in mode `on`
 * the other parts are skipped, in mode `soft` they are read and verified ([[SoftCheck]]).
 */
final case class PartSelection(condition: Option[Expression], mode: PushdownMode, admits: PartMeta => Boolean,
    among: Option[IndexedSeq[PartMeta] => PartMeta => Boolean] = None,
    /** The segments of parts the decision met so far, and how many it ruled out whole ([[SegmentSkipping]]). */
    segments: () => (Int, Int) = () => (0, 0)) {

  /**
   * The decision over the candidate `parts` of a scan: `admits`, or a decision made once for
   * them (their segments decided first, [[SegmentSkipping.prepare]]; functions the filter calls
   * evaluated ahead, [[UdfProbes]]).
   */
  def admitsAmong(parts: IndexedSeq[PartMeta]): PartMeta => Boolean = among.fold(admits)(_(parts))

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
  val All: PartSelection = PartSelection(None, PushdownMode.Off, _ => true)
}
