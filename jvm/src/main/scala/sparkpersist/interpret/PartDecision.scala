package sparkpersist.interpret

/**
 * What a filter condition tells of one part, from the part's statistics (the three-way decision
 * of [[PartFilter.decide]], the one encoding every layer above passes around):
 *  - [[PartDecision.RuledOut]]: false or null, and error-free, for every row the statistics admit:
 *    the part may be skipped;
 *  - [[PartDecision.ProvenTrue]]: true and error-free for every such row (the dual proof): the part
 *    may be answered from its statistics or retracted whole;
 *  - [[PartDecision.Undecided]]: neither proven: the part must be read.
 */
sealed abstract class PartDecision private (val name: String) {
  /** Whether the part may hold a row for which the condition is true or raises. */
  def admits: Boolean = this ne PartDecision.RuledOut

  override def toString: String = name
}

object PartDecision {
  case object RuledOut extends PartDecision("ruled out")
  case object Undecided extends PartDecision("undecided")
  case object ProvenTrue extends PartDecision("proven true")

  /** The decision a condition's spec over one part makes. */
  def of(spec: ResultSpec): PartDecision =
    if (!spec.mayBeTrue && !spec.mayFail) RuledOut
    else if (!spec.mayBeFalse && !spec.nullable && !spec.mayFail) ProvenTrue
    else Undecided
}
