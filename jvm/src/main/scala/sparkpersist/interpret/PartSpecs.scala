package sparkpersist.interpret

import org.apache.spark.sql.types.DataType

import sparkpersist.stats.{ColumnStats, PartStats}

/**
 * Builds the spec of one column (stable id `columnId`, type `dataType`) from part statistics:
 * what the column may hold in that part. Reading a column never raises, so column specs are
 * never fallible.
 *
 *  - no statistics for the column: any value or null;
 *  - `nullCount >= rowCount`: only null (no values);
 *  - both bounds present: [[Values.Within]]`(lower, upper)` (truncated string bounds still
 *    bracket every value), nullable iff `nullCount > 0`;
 *  - a bound absent, of the wrong class, out of order, or a type without ranges: any value.
 */
final class PartSpecs(val columnId: Int, val dataType: DataType) {
  private val ord = ValueOrdering.of(dataType).orNull

  def apply(stats: PartStats): ResultSpec =
    stats.columns.get(columnId) match {
      case Some(c) => apply(c, stats.rowCount)
      case None => ResultSpec.AnyValue
    }

  def apply(stats: ColumnStats, rowCount: Long): ResultSpec = {
    val nullable = stats.nullCount > 0
    if (stats.nullCount >= rowCount) ResultSpec(nullable, fallible = false, Values.Empty)
    else ResultSpec(nullable, fallible = false, values(stats))
  }

  private def values(stats: ColumnStats): Values =
    if (ord == null || stats.lower.isEmpty || stats.upper.isEmpty) Values.All
    else {
      val lo = stats.lower.get
      val hi = stats.upper.get
      if (ValueOrdering.isValueOf(lo, dataType) && ValueOrdering.isValueOf(hi, dataType) &&
          ord.lteq(lo, hi)) Values.Within(lo, hi)
      else Values.All
    }
}
