package sparkpersist.interpret

import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

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

  def isRanged(dt: DataType): Boolean = dt match {
    case _: NumericType | BooleanType | BinaryType | DateType | TimestampType | TimestampNTZType |
         _: DayTimeIntervalType | _: YearMonthIntervalType => true
    // Other collations order differently from the bytewise bounds that stats collect.
    case s: StringType => s.collationId == StringType.collationId
    case _ => false
  }

  /** Whether `v` is an internal value of `dt` (to reject corrupt statistics). */
  def isValueOf(v: Any, dt: DataType): Boolean = dt match {
    case BooleanType => v.isInstanceOf[Boolean]
    case ByteType => v.isInstanceOf[Byte]
    case ShortType => v.isInstanceOf[Short]
    case IntegerType | DateType | _: YearMonthIntervalType => v.isInstanceOf[Int]
    case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType => v.isInstanceOf[Long]
    case FloatType => v.isInstanceOf[Float]
    case DoubleType => v.isInstanceOf[Double]
    case _: DecimalType => v.isInstanceOf[Decimal]
    case _: StringType => v.isInstanceOf[UTF8String]
    case BinaryType => v.isInstanceOf[Array[Byte]]
    case _ => false
  }
}
