package sparkpersist.interpret

import org.apache.spark.sql.types.DataType

import sparkpersist.stats.{ArrayStats, ColumnStats, MembershipFilter, PartStats}

/**
 * The constants of a point lookup ([[MemberNodes]]): non-null internal values of `dataType`, the
 * column's type, or its element type when `inElements` (`array_contains`, answered by the filter
 * of the column's array elements).
 */
final case class MemberLookup(values: Seq[Any], dataType: DataType, inElements: Boolean = false)

/**
 * Whether column `columnId` (or its arrays' elements) may hold one of a lookup's values in a part,
 * from its [[MembershipFilter]]: a boolean spec, false when the filter rules every value out,
 * false-or-true otherwise (no filter, or a filter that admits one).
 */
final class MemberSpecs(val columnId: Int, lookup: MemberLookup) extends SlotSpecs {
  private val hashes = lookup.values.map(MembershipFilter.hasher(lookup.dataType)).toArray

  def apply(stats: PartStats): ResultSpec = {
    val filter = stats.columns.get(columnId).flatMap(c => if (lookup.inElements) MemberSpecs.elements(c) else c.members)
    val present = filter.forall(f => hashes.exists(f.mayContain))
    ResultSpec.bool(mayBeFalse = true, mayBeTrue = present, nullable = false, fallible = false)
  }
}

object MemberSpecs {
  /** The filter of an array column's elements, if its stats have one. */
  def elements(c: ColumnStats): Option[MembershipFilter] =
    c.nested.collect { case a: ArrayStats => a.elements.flatMap(_.members) }.flatten
}
