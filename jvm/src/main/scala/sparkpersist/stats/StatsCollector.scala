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
    if (row.isNullAt(ordinal)) updateNull()
    else {
      values += 1
      updateNonNull(row, ordinal)
    }

  /** Adds a null value (also for a value whose enclosing struct is null, see [[StructCollector]]). */
  final def updateNull(): Unit = {
    nulls += 1
    nestedNull()
  }

  final def nullCount: Long = nulls

  /** The stats of every value seen so far. Bounds are absent when no non-null value was seen. */
  final def result(): ColumnStats =
    if (values == 0) ColumnStats(nulls, None, None, nested)
    else ColumnStats(nulls, lower, upper, nested, casts, variantParse = variantParse)

  /** Called for every null value: collectors of nested values count it inside too. */
  protected def nestedNull(): Unit = ()

  /**
   * What the values hold inside (struct fields, array elements, map entries, JSON documents);
   * none by default.
   */
  protected def nested: Option[NestedStats] = None

  /** What the values become under casts (string columns); none by default. */
  protected def casts: Option[CastStats] = None

  /** Whether Spark's `parse_json` accepts the values (JSON text columns); none by default. */
  protected def variantParse: Option[VariantParse] = None

  protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit

  /** Lower bound of the non-null values; called only when at least one was seen. */
  protected def lower: Option[Any]

  /** Upper bound of the non-null values; called only when at least one was seen. */
  protected def upper: Option[Any]
}

object StatsCollector {

  /**
   * The collector for a column of type `dataType`. Structs, arrays and maps get nested stats
   * from the collectors of their fields, elements, keys and values ([[StructCollector]],
   * [[ArrayCollector]], [[MapCollector]]); VARIANT gets JSON stats ([[VariantCollector]]). Other
   * types without an order that bounds can express (intervals, ...) only count
   * nulls; readers then treat their values as "anything".
   *
   * @param boundChars longest prefix (in code points for strings, bytes for binary) kept as a
   *                   string/binary bound; see [[Bounds]].
   * @param castZone   with one, VARIANT values (nested ones included) also get the [[CastStats]]
   *                   of the strings at each place of their documents (timestamps parsed in it)
   */
  def forType(dataType: DataType, boundChars: Int, castZone: Option[String] = None): StatsCollector = dataType match {
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
    case s: StringType if CollatedStrings.supports(s) => new CollatedStringCollector(s, boundChars)
    case BinaryType => new BinaryCollector(boundChars)
    case s: StructType => new StructCollector(s, boundChars, castZone)
    case a: ArrayType => new ArrayCollector(a.elementType, boundChars, castZone)
    case m: MapType => new MapCollector(m.keyType, m.valueType, boundChars, castZone)
    case VariantType => new VariantCollector(boundChars, castZone = castZone)
    case _ => new NullCountCollector
  }

  /**
   * The collector for a column: [[JsonTextCollector]] for a string column declared as JSON
   * ([[sparkpersist.schema.JsonColumns]]); with a `castZone`, a UTF8_BINARY string column's
   * collector also collects [[CastStats]] (timestamps parsed in that zone), and so do the string
   * values of each place of a JSON text or VARIANT column, nested VARIANT values included; else
   * [[forType]]. A place of a JSON text or VARIANT column whose strings (or integers) take at most
   * `jsonMembers` distinct values gets their membership filter (0: none). With `boundsFromFile`,
   * the string bounds of a UTF8_BINARY or JSON text column come from the part file ([[FileBounded]]).
   */
  def forColumn(dataType: DataType, json: Boolean, boundChars: Int, castZone: Option[String] = None,
      jsonMembers: Int = 0, boundsFromFile: Boolean = false): StatsCollector = {
    val limits = JsonLimits.Default.copy(maxMembers = jsonMembers)
    dataType match {
      case _: StringType if json => new JsonTextCollector(boundChars, limits, castZone, boundsFromFile)
      case s: StringType if s.collationId == StringType.collationId =>
        new StringCollector(boundChars, castZone, boundsFromFile)
      case VariantType => new VariantCollector(boundChars, limits, castZone)
      case _ => forType(dataType, boundChars, castZone)
    }
  }
}

/** Counts nulls only: for types whose values have no bounds in [[ColumnStats]]. */
final class NullCountCollector extends StatsCollector {
  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = ()
  override protected def lower: Option[Any] = None
  override protected def upper: Option[Any] = None
}
