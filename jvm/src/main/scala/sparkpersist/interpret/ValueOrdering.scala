package sparkpersist.interpret

import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.stats.CollatedStrings

/**
 * The ordering of Catalyst internal values that ranges ([[Values.Within]]) use, per data type.
 *
 * It is Spark's own interpreted ordering, the one `=`, `<`, `IN`, `greatest`, ... evaluate with,
 * so abstract and concrete comparisons agree: NaN is larger than every other float/double and
 * equal to itself, `-0.0` equals `0.0`, strings and binary compare bytewise (unsigned).
 * Only types whose ordering is total and matches how part statistics are collected get one:
 * numbers, booleans, strings with a binary collation, binary, dates, timestamps and intervals.
 */
object ValueOrdering {

  /** The ordering of `dt`, if ranges of that type are supported. */
  def of(dt: DataType): Option[Ordering[Any]] =
    if (isRanged(dt)) Some(TypeUtils.getInterpretedOrdering(dt)) else None

  /**
   * The order of a string type of a collation [[CollatedStrings]] supports: the collation's, which
   * Spark's comparisons of such strings use and their stats are collected in. Only comparisons
   * with constants read it ([[CollatedSpecs]]); everything else treats collated strings as
   * unordered (functions over them assume no order).
   */
  def collated(dt: DataType): Option[Ordering[Any]] =
    if (CollatedStrings.supports(dt)) Some(TypeUtils.getInterpretedOrdering(dt)) else None

  def isRanged(dt: DataType): Boolean = dt match {
    case _: NumericType | BooleanType | BinaryType | DateType | TimestampType | TimestampNTZType |
         _: DayTimeIntervalType | _: YearMonthIntervalType => true
    // Other collations order differently from the bytewise bounds that stats collect.
    case s: StringType => s.collationId == StringType.collationId
    case _ => false
  }

  /** Whether `v` is an internal value of `dt` (to reject corrupt statistics). */
  def isValueOf(v: Any, dt: DataType): Boolean = {
    val c = valueClass(dt)
    c != null && c.isInstance(v)
  }

  /**
   * The class of `dt`'s internal values (boxed), or null for types without one here: resolved
   * once per column, so checking a part's bounds costs no type dispatch.
   */
  def valueClass(dt: DataType): Class[_] = dt match {
    case BooleanType => classOf[java.lang.Boolean]
    case ByteType => classOf[java.lang.Byte]
    case ShortType => classOf[java.lang.Short]
    case IntegerType | DateType | _: YearMonthIntervalType => classOf[java.lang.Integer]
    case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType => classOf[java.lang.Long]
    case FloatType => classOf[java.lang.Float]
    case DoubleType => classOf[java.lang.Double]
    case _: DecimalType => classOf[Decimal]
    case _: StringType => classOf[UTF8String]
    case BinaryType => classOf[Array[Byte]]
    case _ => null
  }
}
