package sparkpersist.interpret

import java.time.{Instant, LocalDate, ZoneId}

import scala.collection.mutable.ArrayBuffer
import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types.{DateType, LongType, StringType, TimestampType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * One piecewise monotone function of one argument: non-decreasing on each piece `split` cuts an
 * argument range into (an hour field within one local day, a month within one year, an ISO
 * `date_format` between two offset transitions of the session zone), so a range maps to the
 * union of the function's values at each piece's endpoints. `split` gives None when the range
 * leaves the function's domain or spans more than [[Piecewise.MaxPieces]] pieces.
 *
 * `arg` is the argument and `template` the function with the argument bound to slot 0.
 */
final case class Piecewise(arg: Expression, template: Expression, split: (Any, Any) => Option[Seq[(Any, Any)]])

/**
 * The registry of piecewise monotone functions. Field extractors of dates (`month`, `day`,
 * `dayofyear`, `quarter`, `dayofweek`, `weekday`) split at calendar boundaries; those of
 * timestamps (`hour`, `minute`, `second`) and `date_format`/`from_unixtime` with an
 * order-preserving pattern split at the session zone's offset transitions too (between two,
 * local time is the instant plus a fixed offset: DST cannot make it go back inside a piece).
 * None of them raises for a non-null argument in its domain.
 */
object Piecewise {

  /** Pieces beyond which a range gives any value (a wide range spans every result anyway). */
  val MaxPieces: Int = 32

  private val dayMicros = 86400L * 1000000L
  private val hourMicros = 3600L * 1000000L
  private val minuteMicros = 60L * 1000000L

  /**
   * Timestamps `date_format` prints in order: local years 1900 to 9999, with a day's margin
   * (four-digit years; from 1900 on, the legacy formatter's calendar and zone history agree with
   * `java.time`'s).
   */
  private val formatMin = LocalDate.of(1900, 1, 2).toEpochDay * dayMicros
  private val formatMax = LocalDate.of(9999, 12, 30).toEpochDay * dayMicros

  def lookup(e: Expression): Option[Piecewise] = e match {
    case Month(c) => dates(e, c, yearEnd)
    case DayOfYear(c) => dates(e, c, yearEnd)
    case Quarter(c) => dates(e, c, yearEnd)
    case DayOfMonth(c) => dates(e, c, monthEnd)
    // 1 = Sunday ... 7 = Saturday: non-decreasing from a Sunday to the next Saturday.
    case DayOfWeek(c) => dates(e, c, weekEnd(4))
    // 0 = Monday ... 6 = Sunday.
    case WeekDay(c) => dates(e, c, weekEnd(3))
    case t: TimeZoneAwareExpression if t.timeZoneId.isEmpty => None
    case h: Hour if h.child.dataType == TimestampType => times(h, h.child, h.zoneId, dayMicros, 1L)
    case m: Minute if m.child.dataType == TimestampType => times(m, m.child, m.zoneId, hourMicros, 1L)
    case s: Second if s.child.dataType == TimestampType => times(s, s.child, s.zoneId, minuteMicros, 1L)
    case f: DateFormatClass if f.left.dataType == TimestampType && isoPattern(f.right) =>
      formatted(f, f.left, f.zoneId, 1L)
    case f: FromUnixTime if f.sec.dataType == LongType && isoPattern(f.format) =>
      formatted(f, f.sec, f.zoneId, 1000000L)
    case _ => None
  }

  private def bind(e: Expression, arg: Expression): Expression =
    e.mapChildren(c => if (c eq arg) BoundReference(0, arg.dataType, nullable = true) else c)

  private def dates(e: Expression, arg: Expression, pieceEnd: Int => Int): Option[Piecewise] =
    if (arg.dataType != DateType) None
    else Some(Piecewise(arg, bind(e, arg), (lo, hi) =>
      datePieces(lo.asInstanceOf[Int], hi.asInstanceOf[Int], pieceEnd)))

  private def times(e: Expression, arg: Expression, zone: ZoneId, period: Long, unit: Long) =
    Some(Piecewise(arg, bind(e, arg), (lo, hi) =>
      timePieces(lo.asInstanceOf[Long], hi.asInstanceOf[Long], zone, period, unit)))

  /** `date_format`/`from_unixtime`: `unit` is the argument's unit in microseconds. */
  private def formatted(e: Expression, arg: Expression, zone: ZoneId, unit: Long) =
    Some(Piecewise(arg, bind(e, arg), { (lo, hi) =>
      val (l, h) = (lo.asInstanceOf[Long], hi.asInstanceOf[Long])
      if (l < formatMin / unit || h > formatMax / unit) None
      else timePieces(l, h, zone, 0L, unit)
    }))

  private def yearEnd(d: Int): Int = {
    val date = LocalDate.ofEpochDay(d)
    date.withDayOfYear(date.lengthOfYear).toEpochDay.toInt
  }

  private def monthEnd(d: Int): Int = {
    val date = LocalDate.ofEpochDay(d)
    date.withDayOfMonth(date.lengthOfMonth).toEpochDay.toInt
  }

  /** The last day of the week of `d`, weeks starting `shift` days before a Thursday. */
  private def weekEnd(shift: Int)(d: Int): Int = d - Math.floorMod(d + shift, 7) + 6

  private def datePieces(lo: Int, hi: Int, pieceEnd: Int => Int): Option[Seq[(Any, Any)]] =
    if (!Monotonicity.inDomain(lo, DateType) || !Monotonicity.inDomain(hi, DateType)) None
    else {
      val pieces = ArrayBuffer.empty[(Any, Any)]
      var start = lo
      while (start <= hi) {
        if (pieces.size == MaxPieces) return None
        val end = math.min(hi, pieceEnd(start))
        pieces += ((start, end))
        if (end == Int.MaxValue) return Some(pieces.toSeq)
        start = end + 1
      }
      Some(pieces.toSeq)
    }

  /**
   * Cuts `[lo, hi]` (in units of `unit` microseconds) where the zone's offset changes and, when
   * `period` is positive, at every local multiple of `period` (local days, hours, minutes).
   */
  private def timePieces(lo: Long, hi: Long, zone: ZoneId, period: Long, unit: Long): Option[Seq[(Any, Any)]] =
    try {
      val rules = zone.getRules
      val pieces = ArrayBuffer.empty[(Any, Any)]
      var start = lo
      while (start <= hi) {
        if (pieces.size == MaxPieces) return None
        val at = Math.multiplyExact(start, unit)
        val instant = Instant.EPOCH.plus(at, java.time.temporal.ChronoUnit.MICROS)
        val offset = rules.getOffset(instant).getTotalSeconds * 1000000L
        // The first microsecond of the next piece.
        var next = Option(rules.nextTransition(instant))
          .map(t => Math.addExact(Math.multiplyExact(t.getInstant.getEpochSecond, 1000000L), t.getInstant.getNano / 1000L))
          .getOrElse(Long.MaxValue)
        if (period > 0) {
          val local = Math.addExact(at, offset)
          next = math.min(next, Math.subtractExact(Math.addExact(Math.floorDiv(local, period) * period, period), offset))
        }
        val end = math.min(hi, Math.floorDiv(next - 1, unit))
        pieces += ((start, end))
        if (end == Long.MaxValue) return Some(pieces.toSeq)
        start = end + 1
      }
      Some(pieces.toSeq)
    } catch { case _: ArithmeticException | _: java.time.DateTimeException => None }

  /**
   * Whether a constant format pattern prints local date-times in their order: zero-padded fields
   * from the year down, none skipped (`yyyy`, `MM`, `dd`, `HH`, `mm`, `ss`, then fractions `S...`),
   * separated by constant text (non-letters, or letters in quotes).
   */
  def isoPattern(format: Expression): Boolean =
    Interpreter.constant(format).flatten.exists {
      case p: UTF8String if format.dataType.isInstanceOf[StringType] => isoFields(p.toString)
      case _ => false
    }

  private val fieldOrder = Seq("yyyy", "MM", "dd", "HH", "mm", "ss")

  private def isoFields(pattern: String): Boolean = {
    val fields = ArrayBuffer.empty[String]
    var i = 0
    while (i < pattern.length) {
      val c = pattern.charAt(i)
      if (c == '\'') {
        val close = pattern.indexOf('\'', i + 1)
        // '' (a quote) and unterminated quotes are not supported.
        if (close <= i + 1) return false
        i = close + 1
      } else if (c.isLetter) {
        var j = i
        while (j < pattern.length && pattern.charAt(j) == c) j += 1
        fields += pattern.substring(i, j)
        i = j
      } else if (c == '[' || c == ']' || c == '{' || c == '}' || c == '#') {
        return false
      } else {
        i += 1
      }
    }
    val (whole, fraction) = fields.span(!_.startsWith("S"))
    whole.nonEmpty && whole == fieldOrder.take(whole.size) &&
      (fraction.isEmpty || (whole.size == fieldOrder.size && fraction.size == 1 && fraction.head.length <= 9))
  }

  /** Spark's value of the template at one argument, or None if it raised or is null. */
  def call(template: Expression, arg: Any): Option[Any] =
    try Option(template.eval(new GenericInternalRow(Array(arg)))) catch { case NonFatal(_) => None }
}
