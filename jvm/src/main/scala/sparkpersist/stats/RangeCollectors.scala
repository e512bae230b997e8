package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.types.Decimal

/** false < true, as Spark orders booleans. */
final class BooleanCollector extends StatsCollector {
  private var sawFalse = false
  private var sawTrue = false

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit =
    if (row.getBoolean(ordinal)) sawTrue = true else sawFalse = true

  override protected def lower: Option[Any] = Some(!sawFalse)
  override protected def upper: Option[Any] = Some(sawTrue)
}

/**
 * Min and max of an integral column (byte, short, int, long, and the integral encodings of date,
 * timestamp and timestamp_ntz), tracked as a Long and reported in the column's internal type.
 */
abstract class LongRangeCollector extends StatsCollector {
  private var min = Long.MaxValue
  private var max = Long.MinValue

  protected def read(row: SpecializedGetters, ordinal: Int): Long

  /** The Catalyst internal value of `v` for the column's type. */
  protected def internal(v: Long): Any

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = {
    val v = read(row, ordinal)
    if (v < min) min = v
    if (v > max) max = v
  }

  override protected def lower: Option[Any] = Some(internal(min))
  override protected def upper: Option[Any] = Some(internal(max))
}

object LongRangeCollector {
  def bytes: StatsCollector = new LongRangeCollector {
    protected def read(row: SpecializedGetters, ordinal: Int): Long = row.getByte(ordinal)
    protected def internal(v: Long): Any = v.toByte
  }
  def shorts: StatsCollector = new LongRangeCollector {
    protected def read(row: SpecializedGetters, ordinal: Int): Long = row.getShort(ordinal)
    protected def internal(v: Long): Any = v.toShort
  }
  /** int and date (days since the epoch). */
  def ints: StatsCollector = new LongRangeCollector {
    protected def read(row: SpecializedGetters, ordinal: Int): Long = row.getInt(ordinal)
    protected def internal(v: Long): Any = v.toInt
  }
  /** long, timestamp and timestamp_ntz (microseconds since the epoch). */
  def longs: StatsCollector = new LongRangeCollector {
    protected def read(row: SpecializedGetters, ordinal: Int): Long = row.getLong(ordinal)
    protected def internal(v: Long): Any = v
  }
}

/**
 * Min and max of a float or double column in Spark's order (`SQLOrderingUtil.compareDoubles`):
 * NaN is larger than every other value, including +Infinity, and -0.0 equals 0.0.
 *
 * Zeros: because Spark treats -0.0 and 0.0 as one value, a zero minimum is recorded as -0.0 and a
 * zero maximum as 0.0, whichever sign the part held. The bounds then bracket every value both
 * in Spark's order and in the IEEE total order (where -0.0 < 0.0), so no reader can be misled.
 * A part holding any NaN has upper NaN; a part holding only NaNs has lower and upper NaN.
 */
abstract class DoubleRangeCollector extends StatsCollector {
  private var min = Double.PositiveInfinity
  private var max = Double.NegativeInfinity
  private var sawNaN = false
  private var sawNumber = false

  protected def read(row: SpecializedGetters, ordinal: Int): Double

  /** The Catalyst internal value of `v` for the column's type (exact: floats widen exactly). */
  protected def internal(v: Double): Any

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = {
    val v = read(row, ordinal)
    if (v != v) sawNaN = true
    else {
      sawNumber = true
      if (v < min) min = v
      if (v > max) max = v
    }
  }

  override protected def lower: Option[Any] =
    Some(internal(if (!sawNumber) Double.NaN else if (min == 0.0) -0.0 else min))

  override protected def upper: Option[Any] =
    Some(internal(if (sawNaN) Double.NaN else if (max == 0.0) 0.0 else max))
}

object DoubleRangeCollector {
  def floats: StatsCollector = new DoubleRangeCollector {
    protected def read(row: SpecializedGetters, ordinal: Int): Double = row.getFloat(ordinal)
    protected def internal(v: Double): Any = v.toFloat
  }
  def doubles: StatsCollector = new DoubleRangeCollector {
    protected def read(row: SpecializedGetters, ordinal: Int): Double = row.getDouble(ordinal)
    protected def internal(v: Double): Any = v
  }
}

/** Min and max of a decimal column, as [[Decimal]]s of the column's precision and scale. */
final class DecimalCollector(precision: Int, scale: Int) extends StatsCollector {
  private var min: Decimal = _
  private var max: Decimal = _

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = {
    val v = row.getDecimal(ordinal, precision, scale)
    if (min == null) { min = v.clone(); max = min }
    else if (v.compare(min) < 0) min = v.clone()
    else if (v.compare(max) > 0) max = v.clone()
  }

  override protected def lower: Option[Any] = Some(min)
  override protected def upper: Option[Any] = Some(max)
}
