package sparkpersist.stats

/**
 * Statistics of one column in one part. Bounds are Catalyst internal values of the column's
 * type (Long for timestamps, Int for dates, UTF8String for strings, Array[Byte] for binary,
 * Decimal, ...), ordered as Spark orders that type (NaN is the largest float/double).
 *
 * `lower` is <= every non-null value and `upper` is >= every non-null value; for strings and
 * binary they may be truncated (a prefix below, a bumped prefix above) and `upper` may be
 * absent. Absent bounds mean "unbounded on that side". When every value is null, both are
 * absent and `nullCount` equals the part's row count.
 */
final case class ColumnStats(nullCount: Long, lower: Option[Any], upper: Option[Any]) {
  override def equals(o: Any): Boolean = o match {
    case c: ColumnStats =>
      nullCount == c.nullCount && StatValues.same(lower, c.lower) && StatValues.same(upper, c.upper)
    case _ => false
  }
  override def hashCode(): Int = nullCount.hashCode()
}

/**
 * Statistics of one part: row count, byte size, and per-column stats keyed by stable column id.
 * A column missing from `columns` has no stats (readers assume anything). `trimmed` names the
 * columns whose stats were widened or dropped to fit the stats budget.
 */
final case class PartStats(
    rowCount: Long,
    bytes: Long,
    columns: Map[Int, ColumnStats],
    trimmed: Set[Int] = Set.empty)

private[stats] object StatValues {
  def same(a: Option[Any], b: Option[Any]): Boolean = (a, b) match {
    case (Some(x: Array[Byte]), Some(y: Array[Byte])) => java.util.Arrays.equals(x, y)
    case (Some(x: Double), Some(y: Double)) => java.lang.Double.compare(x, y) == 0
    case (Some(x: Float), Some(y: Float)) => java.lang.Float.compare(x, y) == 0
    case _ => a == b
  }
}
