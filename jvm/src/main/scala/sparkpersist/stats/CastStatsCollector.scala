package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.{BoundReference, Cast, EvalMode, Expression, GenericInternalRow}
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types.{DataType, DateType, Decimal, DoubleType, LongType, StringType, TimestampType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Collects the [[CastStats]] of a string column, one non-null value at a time, with Spark's own
 * parsing, so that a value counts as parsed exactly when the cast accepts it. Legacy casts accept
 * the same values as ANSI for DOUBLE, DATE and TIMESTAMP (ANSI raises exactly where legacy gives
 * NULL); the strict ANSI grammar of BIGINT is `UTF8String.toLongExact`'s, the legacy one without
 * a fraction. A value is parsed once per cast, and only by the casts its [[TextShape]] admits:
 * ASCII values by the functions the casts call (`UTF8String.toLong`, `Decimal.fromString`, which a
 * cast to DECIMAL calls before rounding, `Double.parseDouble`, `DateTimeUtils.stringToDate` and
 * `stringToTimestamp`), others (Unicode digits and spaces) by the cast expressions themselves.
 *
 * Parsing costs most on text that never parses (free text, names): once the first
 * [[CastStatsCollector.GiveUpAfter]] values of a part all failed every cast, the collector stops
 * and the column gets no cast stats, which readers take as "anything".
 *
 * @param zone the session time zone timestamps are parsed in
 */
final class CastStatsCollector(zone: String) {
  import CastStatsCollector.GiveUpAfter

  private val row = new GenericInternalRow(1)
  private val input = BoundReference(0, StringType, nullable = false)
  private def cast(to: DataType, mode: EvalMode.Value): Expression = Cast(input, to, Some(zone), mode)

  private val toTruncated = cast(LongType, EvalMode.LEGACY)
  private val toDouble = cast(DoubleType, EvalMode.LEGACY)
  private val toDate = cast(DateType, EvalMode.LEGACY)
  private val toTimestamp = cast(TimestampType, EvalMode.LEGACY)

  private val zoneId = DateTimeUtils.getZoneId(zone)
  private val shape = new TextShape
  private val long = new UTF8String.LongWrapper

  private val exact, truncated, timestamp = new LongBounds
  private val date = new LongBounds
  private val decimal = new DecimalBounds
  private val double = new DoubleBounds
  private var unparsed = 0L
  private var seen = 0L
  private var gaveUp = false

  /** Adds one non-null value (which may point into a reused buffer: nothing keeps it). */
  def add(s: UTF8String): Unit = if (!gaveUp) {
    seen += 1
    val parsed = if (shape.read(s)) addByShape(s) else addByCasts(s)
    if (!parsed) {
      unparsed += 1
      if (unparsed == GiveUpAfter && seen == GiveUpAfter) gaveUp = true
    }
  }

  /**
   * An ASCII value: the functions Spark's casts call, each only where the value's [[TextShape]]
   * admits it; true if any accepted it.
   */
  private def addByShape(s: UTF8String): Boolean = {
    var parsed = false
    if (s.toLong(long)) { // the legacy cast's grammar (which takes "." for 0); without a '.', ANSI's
      parsed = true
      truncated.add(long.value)
      if (!shape.dot) exact.add(long.value)
    }
    if (shape.digits) {
      if (shape.decimal) parsed |= addDecimal(s)
      if (shape.floating) {
        try {
          double.add(java.lang.Double.parseDouble(s.toString))
          parsed = true
        } catch { case _: NumberFormatException => () }
      }
      val days = DateTimeUtils.stringToDate(s)
      if (days.isDefined) {
        parsed = true
        date.add(days.get.asInstanceOf[Int].toLong)
      }
      val micros = DateTimeUtils.stringToTimestamp(s, zoneId)
      if (micros.isDefined) {
        parsed = true
        timestamp.add(micros.get.asInstanceOf[Long])
      }
    }
    if (shape.otherDouble && !shape.floating) parsed |= addDouble(s)
    parsed
  }

  /** Any other value (bytes outside ASCII): every one of Spark's casts; true if any accepted it. */
  private def addByCasts(s: UTF8String): Boolean = {
    row.update(0, s)
    var parsed = false
    val t = toTruncated.eval(row)
    if (t != null) {
      parsed = true
      truncated.add(t.asInstanceOf[Long])
      // What ANSI's CAST calls (UTF8StringUtils.toLongExact), without its error: a plain exception.
      try exact.add(s.toLongExact()) catch { case _: NumberFormatException => () }
    }
    parsed |= addDecimal(s)
    parsed |= addDouble(s)
    val days = toDate.eval(row)
    if (days != null) {
      parsed = true
      date.add(days.asInstanceOf[Int].toLong)
    }
    val micros = toTimestamp.eval(row)
    if (micros != null) {
      parsed = true
      timestamp.add(micros.asInstanceOf[Long])
    }
    parsed
  }

  private def addDecimal(s: UTF8String): Boolean = {
    val d = Decimal.fromString(s)
    if (d != null) decimal.add(d.toJavaBigDecimal)
    d != null
  }

  private def addDouble(s: UTF8String): Boolean = {
    row.update(0, s)
    val f = toDouble.eval(row)
    if (f != null) double.add(f.asInstanceOf[Double])
    f != null
  }

  /** The stats of the values added, or None when none of them parses (or the collector gave up). */
  def result(): Option[CastStats] = if (gaveUp) None else {
    val stats = CastStats(zone, exact.range(identity), truncated.range(identity), decimal.range,
      double.range, date.range(_.toInt), timestamp.range(identity), unparsed)
    if (stats.views.forall(_._2.count == 0)) None else Some(stats)
  }

  private final class LongBounds {
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

  /** Doubles as Spark orders them: NaN above +Infinity. */
  private final class DoubleBounds {
    private var count = 0L
    private var min = Double.NaN
    private var max = Double.NaN
    def add(v: Double): Unit = {
      if (count == 0 || java.lang.Double.compare(v, min) < 0) min = v
      if (count == 0 || java.lang.Double.compare(v, max) > 0) max = v
      count += 1
    }
    def range: CastRange = if (count == 0) CastRange.none else CastRange(count, Some(min), Some(max))
  }

  private final class DecimalBounds {
    private var count = 0L
    private var min: java.math.BigDecimal = _
    private var max: java.math.BigDecimal = _
    def add(v: java.math.BigDecimal): Unit = {
      if (count == 0 || v.compareTo(min) < 0) min = v
      if (count == 0 || v.compareTo(max) > 0) max = v
      count += 1
    }
    def range: CastRange = if (count == 0) CastRange.none else CastRange(count, Some(min), Some(max))
  }
}

object CastStatsCollector {
  /** Values of a part that all failed every cast after which a collector stops trying. */
  val GiveUpAfter: Long = 1024
}
