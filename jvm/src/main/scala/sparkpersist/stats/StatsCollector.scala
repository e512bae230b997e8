package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.types._

/**
 * Accumulates the [[ColumnStats]] of one column of one part, one value at a time, inside the
 * write task that writes the part (no second pass over the file).
 *
 * Subclasses see only non-null values and keep their running bounds in primitive fields, so the
 * per-row cost is a null check, a read and a comparison or two.
 */
abstract class StatsCollector {
  private var nulls = 0L
  private var values = 0L

  /** Adds the value at `ordinal` of `row` (null or not). */
  final def update(row: SpecializedGetters, ordinal: Int): Unit =
    if (row.isNullAt(ordinal)) nulls += 1
    else {
      values += 1
      updateNonNull(row, ordinal)
    }

  final def nullCount: Long = nulls

  /** The stats of every value seen so far. Bounds are absent when no non-null value was seen. */
  final def result(): ColumnStats =
    if (values == 0) ColumnStats(nulls, None, None) else ColumnStats(nulls, lower, upper, nested)

  protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit

  /** Lower bound of the non-null values; called only when at least one was seen. */
  protected def lower: Option[Any]

  /** Upper bound of the non-null values; called only when at least one was seen. */
  protected def upper: Option[Any]

  /** What is inside the non-null values, if this collector knows; called as `lower` is. */
  protected def nested: Option[NestedStats] = None
}

object StatsCollector {

  /**
   * The collector for a column of type `dataType`. Types without an order that bounds can
   * express (struct, array, map, variant, intervals, collated strings, ...) only count nulls;
   * readers then treat their values as "anything".
   *
   * @param boundChars longest prefix (in code points for strings, bytes for binary) kept as a
   *                   string/binary bound; see [[Bounds]].
   */
  def forType(dataType: DataType, boundChars: Int): StatsCollector = dataType match {
    case BooleanType => new BooleanCollector
    case ByteType => LongRangeCollector.bytes
    case ShortType => LongRangeCollector.shorts
    case IntegerType => LongRangeCollector.ints
    case DateType => LongRangeCollector.ints
    case LongType | TimestampType | TimestampNTZType => LongRangeCollector.longs
    case FloatType => DoubleRangeCollector.floats
    case DoubleType => DoubleRangeCollector.doubles
    case d: DecimalType => new DecimalCollector(d.precision, d.scale)
    case s: StringType if s.collationId == StringType.collationId => // UTF8_BINARY
      new StringCollector(boundChars)
    case BinaryType => new BinaryCollector(boundChars)
    case VariantType => new VariantCollector(boundChars)
    case _ => new NullCountCollector
  }

  /**
   * The collector for a column: [[JsonTextCollector]] for a string column declared as JSON
   * ([[sparkpersist.shard.JsonColumns]]), else [[forType]].
   */
  def forColumn(dataType: DataType, json: Boolean, boundChars: Int): StatsCollector =
    if (json && dataType.isInstanceOf[StringType]) new JsonTextCollector(boundChars)
    else forType(dataType, boundChars)
}

/** Counts nulls only: for types whose values have no bounds in [[ColumnStats]]. */
final class NullCountCollector extends StatsCollector {
  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = ()
  override protected def lower: Option[Any] = None
  override protected def upper: Option[Any] = None
}
