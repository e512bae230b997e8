package sparkpersist.stats

/**
 * Running counts and bounds of the values one cast view accepts, for [[CastStatsCollector]]:
 * each `range` is the view's [[CastRange]] so far.
 */
private[stats] final class LongBounds {
  private var count = 0L
  private var min = Long.MaxValue
  private var max = Long.MinValue

  def add(v: Long): Unit = {
    count += 1
    if (v < min) min = v
    if (v > max) max = v
  }

  def range(internal: Long => Any): CastRange =
    if (count == 0) CastRange.none else CastRange(count, Some(internal(min)), Some(internal(max)))
}

/** Doubles as Spark orders them: NaN above +Infinity, -0.0 below 0.0. */
private[stats] final class DoubleBounds {
  private var count = 0L
  private var min = Double.NaN
  private var max = Double.NaN

  def add(v: Double): Unit = addRange(v, v, 1)

  /** Adds `count` values between `lower` and `upper`, both among them. */
  def addRange(lower: Double, upper: Double, count: Long): Unit = if (count > 0) {
    if (this.count == 0 || java.lang.Double.compare(lower, min) < 0) min = lower
    if (this.count == 0 || java.lang.Double.compare(upper, max) > 0) max = upper
    this.count += count
  }

  def addAll(that: DoubleBounds): Unit = addRange(that.min, that.max, that.count)

  def range: CastRange = if (count == 0) CastRange.none else CastRange(count, Some(min), Some(max))
}

private[stats] object DoubleBounds {
  /**
   * The double a decimal number's text casts to (the nearest one). Rounding to the nearest double
   * keeps order, so the doubles of the least and greatest decimals bound the doubles of all.
   */
  def of(d: java.math.BigDecimal): Double = d.toString.toDouble
}

private[stats] final class DecimalBounds {
  private var count = 0L
  private var min: java.math.BigDecimal = _
  private var max: java.math.BigDecimal = _

  def add(v: java.math.BigDecimal): Unit = addRange(v, v, 1)

  /** Adds `count` values between `lower` and `upper`, both among them. */
  def addRange(lower: java.math.BigDecimal, upper: java.math.BigDecimal, count: Long): Unit = if (count > 0) {
    if (this.count == 0 || lower.compareTo(min) < 0) min = lower
    if (this.count == 0 || upper.compareTo(max) > 0) max = upper
    this.count += count
  }

  def addAll(that: DecimalBounds): Unit = addRange(that.min, that.max, that.count)

  def range: CastRange = if (count == 0) CastRange.none else CastRange(count, Some(min), Some(max))
}

/**
 * Decimals given as an unscaled `Long` and a scale of 0 to 18 (the number `unscaled / 10^scale`),
 * bounded per scale with two `Long` comparisons and no allocation; [[lower]] and [[upper]]
 * compare the scales' bounds once, at the end.
 */
private[stats] final class ScaledDecimals {
  private val mins = Array.fill(ScaledDecimals.Scales)(Long.MaxValue)
  private val maxs = Array.fill(ScaledDecimals.Scales)(Long.MinValue)
  private val counts = new Array[Long](ScaledDecimals.Scales)

  def add(unscaled: Long, scale: Int): Unit = {
    counts(scale) += 1
    if (unscaled < mins(scale)) mins(scale) = unscaled
    if (unscaled > maxs(scale)) maxs(scale) = unscaled
  }

  def count: Long = counts.sum

  /** The least value added (None if none). */
  def lower: Option[java.math.BigDecimal] = extreme(mins, _.compareTo(_) < 0)

  /** The greatest value added (None if none). */
  def upper: Option[java.math.BigDecimal] = extreme(maxs, _.compareTo(_) > 0)

  private def extreme(of: Array[Long], better: (java.math.BigDecimal, java.math.BigDecimal) => Boolean) =
    counts.indices.filter(counts(_) > 0).map(k => java.math.BigDecimal.valueOf(of(k), k))
      .reduceOption((a, b) => if (better(b, a)) b else a)
}

private[stats] object ScaledDecimals {
  /** Scales 0 to 18: at most 18 digits, so every unscaled value fits a `Long`. */
  val Scales: Int = 19
}
