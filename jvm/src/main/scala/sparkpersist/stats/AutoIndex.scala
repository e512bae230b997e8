package sparkpersist.stats

import org.apache.spark.sql.types._

import sparkpersist.schema.{ColumnDef, JsonColumns}

/**
 * Membership filters chosen without the user naming the column (issue 16's automatic index):
 * every integral (DECIMAL(p, 0) included) or UTF8_BINARY string column that is neither time-like nor declared JSON gets a
 * filter in each part whose values are few enough ([[MembershipCollector]]'s limit, the
 * configuration `spark.sparkpersist.stats.autoIndexValues`) and which says more than the part's
 * bounds. The stats budget drops these filters before anything else, so they only ever use bytes
 * the budget leaves over.
 *
 * Time-like columns are left out because they are filtered by ranges, which bounds answer; a
 * column of a user-named index is not automatic (no limit short of the collector's own, and the
 * budget trims its filter last).
 */
object AutoIndex {

  /**
   * Whether `column` is indexed automatically when the user does not name it (an array column of
   * such values: its elements, for `array_contains`).
   */
  def candidate(column: ColumnDef): Boolean = (column.dataType match {
    case ArrayType(et, _) => idLike(et)
    case dt => idLike(dt)
  }) && !StatsBudget.isTimeLike(column) && !JsonColumns.isDeclared(column)

  private def idLike(dt: DataType): Boolean = dt match {
    case ByteType | ShortType | IntegerType | LongType => true
    case d: DecimalType => d.scale == 0 // ids stored as DECIMAL(20, 0); prices and amounts are ranges
    case s: StringType => MembershipFilter.supports(s)
    case _ => false
  }

  /**
   * Whether a filter of `distinct` values adds to the column's bounds in a part: not when there is
   * a single value (the bounds are that value), nor when integral values fill their whole range
   * (every value between the bounds is present, so the filter could only answer "maybe").
   */
  def informative(stats: ColumnStats, distinct: Int): Boolean =
    distinct > 1 && ((stats.lower, stats.upper) match {
      case (Some(lo), Some(hi)) => integral(lo).zip(integral(hi)).forall { case (l, h) =>
        BigInt(h) - BigInt(l) + 1 > distinct
      }
      case _ => true
    })

  private def integral(v: Any): Option[Long] = v match {
    case b: Byte => Some(b.toLong)
    case s: Short => Some(s.toLong)
    case i: Int => Some(i.toLong)
    case l: Long => Some(l)
    case _ => None
  }
}
