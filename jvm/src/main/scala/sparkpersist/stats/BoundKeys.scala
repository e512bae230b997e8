package sparkpersist.stats

import org.apache.spark.sql.types._

/**
 * Bounds of the simple types as `Long` keys whose signed order is Spark's order of the values:
 * integers, dates, timestamps and intervals as they are, booleans as 0 and 1, floats and doubles
 * by their IEEE bits folded so that negative numbers sort below positive ones, with `-0.0` taken
 * as `0.0` and every NaN as one NaN above `+Infinity` (Spark's `=` and `<` on them). Comparing
 * two keys answers what comparing the two values answers, so a decision over many parts'
 * bounds can compare primitives instead of boxed values ([[PartBounds]]).
 */
object BoundKeys {

  /** Whether bounds of `dt` have keys. */
  def supports(dt: DataType): Boolean = kindOf(dt) != None_

  /** The key of `v`, an internal value of `dt` ([[supports]] must hold); throws on a value of another class. */
  def key(dt: DataType, v: Any): Long = keyOf(kindOf(dt), v)

  /** Whether `v` is an internal value of `dt` (bounds of another class are corrupt: no bounds). */
  def isValueOf(dt: DataType, v: Any): Boolean = (kindOf(dt), v) match {
    case (Bool, _: Boolean) | (Int8, _: Byte) | (Int16, _: Short) | (Int32, _: Int) | (Int64, _: Long) |
         (Float32, _: Float) | (Float64, _: Double) => true
    case _ => false
  }

  /** The key of a double as Spark orders doubles. */
  def doubleKey(d: Double): Long = {
    val bits = java.lang.Double.doubleToLongBits(if (d == 0.0) 0.0 else d) // -0.0 == 0.0; one NaN
    bits ^ ((bits >> 63) & Long.MaxValue)
  }

  /** How the bounds of a type are encoded, and so read into keys ([[PartBounds]]). */
  private[stats] sealed trait Kind
  private[stats] case object Bool extends Kind
  private[stats] case object Int8 extends Kind
  private[stats] case object Int16 extends Kind
  private[stats] case object Int32 extends Kind
  private[stats] case object Int64 extends Kind
  private[stats] case object Float32 extends Kind
  private[stats] case object Float64 extends Kind
  private[stats] case object None_ extends Kind

  private[stats] def kindOf(dt: DataType): Kind = dt match {
    case BooleanType => Bool
    case ByteType => Int8
    case ShortType => Int16
    case IntegerType | DateType | _: YearMonthIntervalType => Int32
    case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType => Int64
    case FloatType => Float32
    case DoubleType => Float64
    case _ => None_
  }

  private[stats] def keyOf(kind: Kind, v: Any): Long = kind match {
    case Bool => if (v.asInstanceOf[Boolean]) 1L else 0L
    case Int8 => v.asInstanceOf[Byte].toLong
    case Int16 => v.asInstanceOf[Short].toLong
    case Int32 => v.asInstanceOf[Int].toLong
    case Int64 => v.asInstanceOf[Long]
    case Float32 => doubleKey(v.asInstanceOf[Float].toDouble)
    case Float64 => doubleKey(v.asInstanceOf[Double])
    case None_ => throw new IllegalArgumentException("no keys for this type")
  }
}
