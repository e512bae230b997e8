package sparkpersist.interpret

import java.math.{BigInteger, RoundingMode, BigDecimal => JBigDecimal}

import scala.util.Try

import org.apache.spark.sql.catalyst.expressions.EvalMode
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types._

import sparkpersist.interpret.JsonCasts.Outcome
import sparkpersist.interpret.Values._
import sparkpersist.stats.{CastRange, CastStats}

/**
 * `CAST(s AS target)` (or `try_cast`) of a string column `s`, read from the column's
 * [[CastStats]]: which values come out, and whether some value fails the cast (an error under
 * ANSI, NULL in legacy mode and for `try_cast`), as Spark 4.1 evaluates it:
 *
 *  - BYTE, SHORT, INT, BIGINT: ANSI and `try_cast` accept integer literals only (the `exact`
 *    view), legacy mode also truncates fractions (the `truncated` view); a value out of the
 *    target's range fails;
 *  - DECIMAL(p, s): the parsed decimal rounded half up to scale `s`, failing past precision `p`;
 *  - DOUBLE: the parsed double; FLOAT: the same text parsed as a float, which is within one float
 *    ulp of the double rounded to a float, so the bounds widen by two ulps;
 *  - DATE: the parsed date;
 *  - TIMESTAMP_NTZ: the parsed local date-time, the same in every zone (an offset in the text is
 *    ignored); stats written before this view read as anything;
 *  - TIMESTAMP: the parsed instant. A string without an offset names another instant in another
 *    zone, by less than 36 hours (offsets are within +-18:00): in a query zone other than the
 *    recorded one, the bounds widen by that much, and a value near the ends of the timestamp
 *    range may fail. Values that did not parse in the recorded zone might parse in the query's
 *    (near the ends of the range): with some, the values are anything.
 *
 * Every view parses the same values in every mode (only what a failure gives differs), except
 * the integral grammar above; `CastAwareSoundnessSuite` checks all of this against Spark's `Cast`.
 */
object TextCasts {

  /** A cast of a string column: its target, mode, and the time zone it parses timestamps in. */
  final case class TextCast(target: DataType, mode: EvalMode.Value, zone: Option[String])

  /**
   * Whether a cast from `from` to `to` reads cast stats (UTF8_BINARY strings, stats collect no
   * other): the targets of [[supportedTarget]], and TIMESTAMP_NTZ.
   */
  def supported(from: DataType, to: DataType): Boolean = from match {
    case s: StringType if s.collationId == StringType.collationId => supportedTarget(to) || to == TimestampNTZType
    case _ => false
  }

  /** Whether cast stats tell what a cast of text to `to` gives. */
  def supportedTarget(to: DataType): Boolean = to match {
    case ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | DateType | TimestampType => true
    case _: DecimalType => true
    case _ => false
  }

  /** Largest difference between two zones' offsets at any instant, in microseconds. */
  val ZoneSlackMicros: Long = 36L * 3600L * 1000000L

  /**
   * What `cast` gives for the `nonNull` values of a column whose cast stats are `stats`, or None
   * when the stats are inconsistent (a view counting more values than there are, bounds of the
   * wrong class or out of order).
   */
  def outcome(stats: CastStats, nonNull: Long, cast: TextCast): Option[Outcome] = {
    def within(view: CastRange)(f: (Any, Any, Boolean) => Option[Outcome]): Option[Outcome] =
      if (view.count > nonNull) None
      else if (view.count == 0) Some(Outcome(Empty, invalid = true))
      else for (lo <- view.lower; hi <- view.upper; o <- f(lo, hi, view.count < nonNull)) yield o
    cast.target match {
      case ByteType => within(integralView(stats, cast.mode))(integral(_, _, _, Byte.MinValue, Byte.MaxValue, _.toByte))
      case ShortType => within(integralView(stats, cast.mode))(integral(_, _, _, Short.MinValue, Short.MaxValue, _.toShort))
      case IntegerType => within(integralView(stats, cast.mode))(integral(_, _, _, Int.MinValue, Int.MaxValue, _.toInt))
      case LongType => within(integralView(stats, cast.mode))(integral(_, _, _, Long.MinValue, Long.MaxValue, identity))
      case d: DecimalType => within(stats.decimal)(decimal(_, _, _, d))
      case DoubleType => within(stats.double) {
        case (lo: Double, hi: Double, invalid) if !(java.lang.Double.compare(lo, hi) > 0) =>
          Some(Outcome(Within(lo, hi), invalid))
        case _ => None
      }
      case FloatType => within(stats.double) {
        case (lo: Double, hi: Double, invalid) if !(java.lang.Double.compare(lo, hi) > 0) =>
          Some(Outcome(Within(Math.nextDown(Math.nextDown(lo.toFloat)), Math.nextUp(Math.nextUp(hi.toFloat))), invalid))
        case _ => None
      }
      case DateType => within(stats.date) {
        case (lo: Int, hi: Int, invalid) if lo <= hi => Some(Outcome(Within(lo, hi), invalid))
        case _ => None
      }
      case TimestampType if stats.timestamp.count == 0 && nonNull > 0 && !cast.zone.exists(sameZone(stats.zone, _)) =>
        // No value parsed in the recorded zone, but one may in the query's (near the ends of the range).
        Some(Outcome(All, invalid = true))
      case TimestampType => within(stats.timestamp) {
        case (lo: Long, hi: Long, invalid) if lo <= hi => Some(timestamps(lo, hi, invalid, stats.zone, cast.zone))
        case _ => None
      }
      case TimestampNTZType => stats.timestampNtz.flatMap(within(_) { // None: not recorded, anything
        case (lo: Long, hi: Long, invalid) if lo <= hi => Some(Outcome(Within(lo, hi), invalid))
        case _ => None
      })
      case _ => None
    }
  }

  private def integralView(stats: CastStats, mode: EvalMode.Value): CastRange =
    if (mode == EvalMode.LEGACY) stats.truncated else stats.exact

  private def integral(lo: Any, hi: Any, invalid: Boolean, min: Long, max: Long, internal: Long => Any): Option[Outcome] =
    (lo, hi) match {
      case (l: Long, h: Long) if l <= h =>
        val (cl, ch) = (math.max(l, min), math.min(h, max))
        Some(Outcome(if (cl > ch) Empty else Within(internal(cl), internal(ch)), invalid || l < min || h > max))
      case _ => None
    }

  private def decimal(lo: Any, hi: Any, invalid: Boolean, t: DecimalType): Option[Outcome] = (lo, hi) match {
    case (l: JBigDecimal, h: JBigDecimal) if l.compareTo(h) <= 0 =>
      // changePrecision rounds half up: monotone, so the bounds round to bounds.
      val max = new JBigDecimal(BigInteger.TEN.pow(t.precision).subtract(BigInteger.ONE), t.scale)
      val min = max.negate()
      val (rl, rh) = (l.setScale(t.scale, RoundingMode.HALF_UP), h.setScale(t.scale, RoundingMode.HALF_UP))
      val (cl, ch) = (rl.max(min), rh.min(max))
      val overflow = rl.compareTo(min) < 0 || rh.compareTo(max) > 0
      Some(Outcome(
        if (cl.compareTo(ch) > 0) Empty else Within(Decimal(cl, t.precision, t.scale), Decimal(ch, t.precision, t.scale)),
        invalid || overflow))
    case _ => None
  }

  private def timestamps(lo: Long, hi: Long, invalid: Boolean, recorded: String, query: Option[String]): Outcome =
    if (query.exists(sameZone(recorded, _))) Outcome(Within(lo, hi), invalid)
    else if (invalid) Outcome(All, invalid = true)
    else {
      val nearEnds = lo < Long.MinValue + ZoneSlackMicros || hi > Long.MaxValue - ZoneSlackMicros
      Outcome(Within(Monotonicity.widen(lo, -ZoneSlackMicros), Monotonicity.widen(hi, ZoneSlackMicros)), nearEnds)
    }

  /** Whether two zone ids parse timestamps alike (`UTC`, `Z`, `+00:00` are one zone). */
  private def sameZone(a: String, b: String): Boolean =
    a == b || Try(DateTimeUtils.getZoneId(a).normalized() == DateTimeUtils.getZoneId(b).normalized()).getOrElse(false)
}
