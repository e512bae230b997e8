package sparkpersist.interpret

import sparkpersist.stats.{MembershipFilter, PartStats}

/**
 * Whether column `columnId` may hold one of `values` (non-null internal values of the column's
 * type) in a part, from its [[MembershipFilter]]: a boolean spec, false when the filter rules
 * every value out, false-or-true otherwise (no filter, or a filter that admits one).
 */
final class MemberSpecs(val columnId: Int, values: Seq[Any]) extends SlotSpecs {
  private val hashes = values.map(MembershipFilter.hash).toArray

  def apply(stats: PartStats): ResultSpec = {
    val present = stats.columns.get(columnId).flatMap(_.members).forall(f => hashes.exists(f.mayContain))
    ResultSpec.bool(mayBeFalse = true, mayBeTrue = present, nullable = false, fallible = false)
  }
}
