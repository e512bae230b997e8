package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.{BoundReference, Cast, EvalMode, Expression, GenericInternalRow, SpecializedGetters}
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types.{DataType, DateType, Decimal, DoubleType, LongType, StringType, TimestampNTZType, TimestampType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Collects the [[CastStats]] of a string column, one non-null value at a time, with Spark's own
 * parsing, so that a value counts as parsed exactly when the cast accepts it. Legacy casts accept
 * the same values as ANSI for DOUBLE, DATE and TIMESTAMP (ANSI raises exactly where legacy gives
 * NULL); the strict ANSI grammar of BIGINT is `UTF8String.toLongExact`'s, the legacy one without
 * a fraction.
 *
 * Each value is read once for its [[TextShape]], which picks how it is parsed:
 *  - a plain number (`-12`, `3.50`: digits, one dot at most, a leading sign, no space, at most 18
 *    digits) is read once, as an unscaled `Long` and a scale: every numeric cast reads it as that
 *    number (the legacy BIGINT cast truncated), decimals are bounded per scale without allocation,
 *    and the DOUBLE bounds are those of the least and greatest decimal, since rounding to a double
 *    keeps order; only integers of 4 to 7 digits, which the date and timestamp casts read as a
 *    year, go through those parsers too;
 *  - a canonical date or local timestamp (`2026-01-05`, `2026-01-05 10:00:00.5`) is read once by
 *    [[CanonicalTime]], and its instant taken from [[LocalInstants]] (Spark's parser only for the
 *    first value of each span between the zone's offset transitions);
 *  - any other ASCII value, by the functions the casts call (`UTF8String.toLong`,
 *    `Decimal.fromString`, which a cast to DECIMAL calls before rounding, `Double.parseDouble`,
 *    `DateTimeUtils.stringToDate` and `stringToTimestamp`), each only where the shape admits it;
 *  - others (Unicode digits and spaces), by the cast expressions themselves.
 *
 * Parsing costs most on text that never parses (free text, names): once the first
 * [[CastStatsCollector.GiveUpAfter]] values of a part all failed every cast, the collector stops
 * and the column gets no cast stats, which readers take as "anything". It also stops at a
 * time-only value that the TIMESTAMP cast accepts (`"12:30"`, `"T10:00:00"`): Spark gives it the
 * current date, so its instant changes every day and no bound recorded today holds tomorrow.
 *
 * @param zone the session time zone timestamps are parsed in
 */
final class CastStatsCollector(zone: String) {
  import CastStatsCollector.GiveUpAfter

  private val row = new GenericInternalRow(1)
  private val input = BoundReference(0, StringType, nullable = false)
  private def cast(to: DataType, mode: EvalMode.Value): Expression = Cast(input, to, Some(zone), mode)

  // Built on first use: most values never take the general path, and a JSON document has a
  // collector for each place that holds strings.
  private lazy val toTruncated = cast(LongType, EvalMode.LEGACY)
  private lazy val toDouble = cast(DoubleType, EvalMode.LEGACY)
  private lazy val toDate = cast(DateType, EvalMode.LEGACY)
  private lazy val toTimestamp = cast(TimestampType, EvalMode.LEGACY)
  private lazy val toTimestampNtz = cast(TimestampNTZType, EvalMode.LEGACY)

  private val zoneId = DateTimeUtils.getZoneId(zone)
  private val text = new TextBytes
  private val shape = new TextShape
  private val time = new CanonicalTime
  private val instants = new LocalInstants(zoneId)
  private val long = new UTF8String.LongWrapper

  private val exact, truncated, timestamp, timestampNtz = new LongBounds
  private val date = new LongBounds
  private val decimal = new DecimalBounds
  private val double = new DoubleBounds
  private val plainNumbers = new ScaledDecimals // in the decimal and double views besides those above
  private var unparsed = 0L
  private var seen = 0L
  private var gaveUp = false

  /** Adds one non-null value (which may point into a reused buffer: nothing keeps it). */
  def add(s: UTF8String): Unit = if (!gaveUp) add(text.of(s))

  /** Adds the non-null string at `ordinal` of `row`, read where it lies ([[TextBytes]]). */
  def add(row: SpecializedGetters, ordinal: Int): Unit = if (!gaveUp) add(text.of(row, ordinal))

  private def add(t: TextBytes): Unit = {
    seen += 1
    val parsed =
      if (time.read(t)) addCanonicalTime(t)
      else if (!shape.read(t)) addByCasts(t.string)
      else if (shape.plainNumber) addPlainNumber(t)
      else addByShape(t.string)
    if (!parsed) {
      unparsed += 1
      if (unparsed == GiveUpAfter && seen == GiveUpAfter) gaveUp = true
    }
  }

  /** A plain number (see the class), read by its [[TextShape]]; true. */
  private def addPlainNumber(t: TextBytes): Boolean = {
    val value = shape.unscaled
    val scale = shape.scale
    if (value == 0 && t.getByte(0) == '-') return addByShape(t.string) // "-0": the double cast keeps the sign
    truncated.add(if (scale == 0) value else value / CastStatsCollector.PowersOfTen(scale))
    plainNumbers.add(value, scale)
    if (!shape.dot) {
      exact.add(value)
      if (shape.digitCount >= 4 && shape.digitCount <= 7) addDateAndTimestamp(t.string)
    }
    true
  }

  /** A canonical date or local timestamp (see [[CanonicalTime]]), just read into `time`; true. */
  private def addCanonicalTime(t: TextBytes): Boolean = {
    date.add(time.days)
    timestampNtz.add(time.localMicros)
    if (instants.covers(time.localMicros)) timestamp.add(instants.instant(time.localMicros))
    else DateTimeUtils.stringToTimestamp(t.string, zoneId).foreach { micros =>
      timestamp.add(micros.asInstanceOf[Long])
      instants.learn(micros.asInstanceOf[Long])
    }
    true
  }

  /**
   * Any other ASCII value: the functions Spark's casts call, each only where the value's
   * [[TextShape]] admits it; true if any accepted it.
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
      parsed |= addDateAndTimestamp(s)
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
      addTimestamp(s, micros.asInstanceOf[Long])
    }
    val local = toTimestampNtz.eval(row)
    if (local != null) {
      parsed = true
      addTimestampNtz(s, local.asInstanceOf[Long])
    }
    parsed
  }

  /** Spark's DATE, TIMESTAMP and TIMESTAMP_NTZ parsers; true if any accepted `s`. */
  private def addDateAndTimestamp(s: UTF8String): Boolean = {
    val days = DateTimeUtils.stringToDate(s)
    days.foreach(d => date.add(d.asInstanceOf[Int].toLong))
    val micros = DateTimeUtils.stringToTimestamp(s, zoneId)
    micros.foreach(m => addTimestamp(s, m.asInstanceOf[Long]))
    val local = DateTimeUtils.stringToTimestampWithoutTimeZone(s, true)
    local.foreach(m => addTimestampNtz(s, m.asInstanceOf[Long]))
    days.isDefined || micros.isDefined || local.isDefined
  }

  /** A value the TIMESTAMP cast accepts: its instant, or the collector stops if it has no date. */
  private def addTimestamp(s: UTF8String, micros: Long): Unit =
    if (CastStatsCollector.isTimeOnly(s)) gaveUp = true else timestamp.add(micros)

  /** A value the TIMESTAMP_NTZ cast accepts: its local time, or the collector stops if it has no date. */
  private def addTimestampNtz(s: UTF8String, micros: Long): Unit =
    if (CastStatsCollector.isTimeOnly(s)) gaveUp = true else timestampNtz.add(micros)

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
    val decimals = new DecimalBounds
    val doubles = new DoubleBounds
    for (lower <- plainNumbers.lower; upper <- plainNumbers.upper) {
      decimals.addRange(lower, upper, plainNumbers.count)
      doubles.addRange(DoubleBounds.of(lower), DoubleBounds.of(upper), plainNumbers.count)
    }
    decimals.addAll(decimal)
    doubles.addAll(double)
    val ntz = timestampNtz.range(identity)
    val stats = CastStats(zone, exact.range(identity), truncated.range(identity), decimals.range,
      doubles.range, date.range(_.toInt), timestamp.range(identity), unparsed, Some(ntz))
    if (stats.views.forall(_._2.count == 0) && ntz.count == 0) None else Some(stats)
  }
}

object CastStatsCollector {
  /** Values of a part that all failed every cast after which a collector stops trying. */
  val GiveUpAfter: Long = 1024

  private val PowersOfTen: Array[Long] = Array.iterate(1L, ScaledDecimals.Scales)(_ * 10)

  /**
   * Whether `s`, if the TIMESTAMP cast accepts it, is a time without a date, which Spark's
   * parser recognises after trimming by a leading `T` or by digits followed by `:`. Errs towards
   * true: any leading byte outside printable ASCII is skipped as if it were trimmed.
   */
  private[stats] def isTimeOnly(s: UTF8String): Boolean = {
    val n = s.numBytes()
    var i = 0
    while (i < n && { val b = s.getByte(i); b <= ' ' || b == 0x7f }) i += 1
    if (i < n && s.getByte(i) == 'T') return true
    while (i < n && s.getByte(i) >= '0' && s.getByte(i) <= '9') i += 1
    i < n && s.getByte(i) == ':'
  }
}
