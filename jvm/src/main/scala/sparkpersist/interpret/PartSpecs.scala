package sparkpersist.interpret

import org.apache.spark.sql.types.{DataType, StringType, VariantType}

import sparkpersist.stats.{ColumnStats, JsonStats, PartStats}

/**
 * Builds the spec of one column (stable id `columnId`, type `dataType`) from part statistics:
 * what the column may hold in that part. Reading a column never raises, so column specs are
 * never fallible.
 *
 *  - no statistics for the column: any value or null;
 *  - `nullCount >= rowCount`: only null (no values);
 *  - both bounds present: [[Values.Within]]`(lower, upper)` (truncated string bounds still
 *    bracket every value), nullable iff `nullCount > 0`;
 *  - a bound absent, of the wrong class, out of order, or a type without ranges: any value;
 *  - JSON stats (a VARIANT column, or a string column declared JSON): the documents, as a
 *    [[Values.Nested]] with its [[JsonSpec]] (a JSON text column's string bounds are then not
 *    used: string comparisons on it admit any string).
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

  private def values(stats: ColumnStats): Values = stats.nested match {
    case Some(js: JsonStats) if PartSpecs.holdsJson(dataType) => JsonSpec.values(js) match {
      case Values.Empty => Values.All // stats that count no document for non-null rows: corrupt
      case v => v
    }
    case _ => ranged(stats)
  }

  private def ranged(stats: ColumnStats): Values =
    if (ord == null || stats.lower.isEmpty || stats.upper.isEmpty) Values.All
    else {
      val lo = stats.lower.get
      val hi = stats.upper.get
      if (ValueOrdering.isValueOf(lo, dataType) && ValueOrdering.isValueOf(hi, dataType) &&
          ord.lteq(lo, hi)) Values.Within(lo, hi)
      else Values.All
    }
}

object PartSpecs {
  /** Types whose columns may carry [[JsonStats]]: VARIANT, and strings declared JSON. */
  def holdsJson(dt: DataType): Boolean = dt == VariantType || dt.isInstanceOf[StringType]
}
