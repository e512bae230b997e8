package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._

/** How a function's result moves when one argument grows (others fixed). */
sealed trait Direction

object Direction {
  /** Non-decreasing in this argument. */
  case object Up extends Direction
  /** Non-increasing in this argument. */
  case object Down extends Direction
  /** Non-increasing below zero, non-decreasing above (`abs`): the range is split at zero. */
  case object DownThenUp extends Direction
  /** The argument must be a constant (a format, an interval, a divisor, ...). */
  case object Fixed extends Direction
}

/** When a function can raise an error for non-null arguments. */
sealed trait Raises

object Raises {
  /** Never (it may still return null or wrap around: then it has a checked twin). */
  case object Never extends Raises
  /**
   * Only for arguments beyond some bound in the direction of monotonicity (overflow, out of
   * range): an error for some argument in a range shows up at one of the range's endpoints.
   */
  case object AtTails extends Raises
}

/**
 * One registry entry: the function is monotone in each argument as `directions` says (one per
 * child, in `children` order), so a range of arguments maps to a range of results through the
 * endpoints.
 *
 * `checked` is the function's checked twin when the function itself silently wraps around or
 * returns null on overflow (non-ANSI arithmetic and casts, `try_*`, `date_add`): an expression
 * that equals the function wherever it neither wraps nor nulls, and raises everywhere else.
 * The endpoints are evaluated with the twin, so an overflow is seen instead of a wrapped value.
 *
 * `zoneDependent` functions read local date-times in a session time zone whose offset can jump
 * back (DST), which breaks monotonicity by less than the largest offset difference (36 hours):
 * unless the zone has a fixed offset, temporal arguments are widened by [[Monotone.ZoneSlack]].
 */
final case class Monotone(
    directions: IndexedSeq[Direction],
    raises: Raises,
    checked: Option[Expression] = None,
    zoneDependent: Boolean = false)

/**
 * The monotonicity registry: for each supported expression class, the direction per argument
 * and when it can raise. A class (or an instance, e.g. a cast between unsupported types or a
 * product with a non-constant factor) that is not listed is not monotone: the interpreter
 * gives "anything" for it.
 */
object Monotonicity {
  import Direction._

  /** Days by which temporal arguments of zone-dependent functions are widened. */
  val ZoneSlackDays: Int = 3

  def lookup(e: Expression): Option[Monotone] = e match {
    case c: Cast => cast(c)
    case a: Add if numeric(a) =>
      Some(Monotone(Vector(Up, Up), arithmeticRaises(a.evalMode), arithmeticTwin(a)))
    case s: Subtract if numeric(s) =>
      Some(Monotone(Vector(Up, Down), arithmeticRaises(s.evalMode), arithmeticTwin(s)))
    case m: Multiply if numeric(m) => byConstant(m, m.evalMode, m.left, m.right, commutes = true)
    case d: Divide => byConstant(d, d.evalMode, d.left, d.right, commutes = false)
    case d: IntegralDivide => byConstant(d, d.evalMode, d.left, d.right, commutes = false)
    case u: UnaryMinus if numeric(u) =>
      Some(Monotone(Vector(Down), raisesIf(u.failOnError),
        if (u.failOnError) None else Some(u.copy(failOnError = true))))
    case a: Abs if numeric(a) =>
      Some(Monotone(Vector(DownThenUp), raisesIf(a.failOnError),
        if (a.failOnError) None else Some(a.copy(failOnError = true))))
    case d: DateAdd => Some(Monotone(Vector(Up, Up), Raises.Never, Some(dateArithmeticTwin(d, Add(_, _, ansi)))))
    case d: DateSub =>
      Some(Monotone(Vector(Up, Down), Raises.Never, Some(dateArithmeticTwin(d, Subtract(_, _, ansi)))))
    case t: TimestampAddInterval =>
      Some(Monotone(Vector(Up, Fixed), Raises.AtTails, zoneDependent = addsLocalDays(t)))
    case _: TimestampAddYMInterval => Some(Monotone(Vector(Up, Fixed), Raises.AtTails, zoneDependent = true))
    case _: DateAddInterval => Some(Monotone(Vector(Up, Fixed), Raises.AtTails, zoneDependent = true))
    case _: DateAddYMInterval => Some(Monotone(Vector(Up, Fixed), Raises.AtTails))
    case _: TimestampAdd => Some(Monotone(Vector(Up, Up), Raises.AtTails, zoneDependent = true))
    case _: UnixMillis | _: UnixSeconds | _: UnixMicros | _: UnixDate =>
      Some(Monotone(Vector(Up), Raises.Never))
    case _: MillisToTimestamp | _: MicrosToTimestamp | _: DateFromUnixDate =>
      Some(Monotone(Vector(Up), Raises.AtTails))
    case s: SecondsToTimestamp if s.child.dataType != FloatType && s.child.dataType != DoubleType =>
      Some(Monotone(Vector(Up), Raises.AtTails))
    case _: TruncTimestamp => Some(Monotone(Vector(Fixed, Up), Raises.AtTails, zoneDependent = true))
    case _: TruncDate => Some(Monotone(Vector(Up, Fixed), Raises.Never))
    case _: Year => Some(Monotone(Vector(Up), Raises.Never))
    // Whole numbers below/above a number: saturate at the long range, never wrap.
    case _: Floor | _: Ceil => Some(Monotone(Vector(Up), Raises.AtTails))
    case r: RoundBase if r.left.dataType == DoubleType || r.left.dataType == FloatType =>
      Some(Monotone(Vector(Up, Fixed), Raises.AtTails))
    // The first characters (bytes) of a string (binary): a prefix keeps the bytewise order.
    case s: Substring if Interpreter.constant(s.pos).flatten.exists(p => p == 0 || p == 1) =>
      Some(Monotone(Vector(Up, Fixed, Fixed), Raises.Never))
    case _ => None
  }

  /** Days from the epoch that a timestamp can represent (about 292,000 years each way). */
  val MaxDays: Int = (Long.MaxValue / (86400L * 1000000L)).toInt

  /**
   * Whether registry functions are monotone at argument value `v` of type `dt`: floats must be
   * finite (NaN and infinities break it: `inf * 0`, `cast(NaN as int)`), and dates must be
   * within [[MaxDays]] of the epoch (beyond that, `java.time` conversions overflow `Int` days
   * and wrap around), and strings must be valid UTF-8 (a truncated bound may end inside a
   * character, and string functions count characters by their first byte).
   */
  def inDomain(v: Any, dt: DataType): Boolean = v match {
    case d: Double => !d.isNaN && !d.isInfinite
    case f: Float => !f.isNaN && !f.isInfinite
    case i: Int if dt == DateType => i >= -MaxDays && i <= MaxDays
    case s: org.apache.spark.unsafe.types.UTF8String => s.isValid
    case _ => true
  }

  /** `v` (a date in days or a timestamp in microseconds) moved by `by`, saturating. */
  def widen(v: Any, by: Long): Any =
    if (by == 0) v
    else v match {
      case l: Long =>
        val r = l + by
        if (((l ^ r) & (by ^ r)) < 0) (if (by > 0) Long.MaxValue else Long.MinValue) else r
      case i: Int => math.max(Int.MinValue.toLong, math.min(Int.MaxValue.toLong, i + by)).toInt
      case other => other
    }

  /** The slack for one argument of a zone-dependent function, in its own unit. */
  def zoneSlack(argType: DataType): Long = argType match {
    case DateType => ZoneSlackDays
    case TimestampType | TimestampNTZType => ZoneSlackDays * 86400L * 1000000L
    case _ => 0L
  }

  /** Whether a zone-dependent function's zone may jump back (then arguments get the slack). */
  def needsZoneSlack(e: Expression): Boolean = e match {
    case t: TimeZoneAwareExpression if t.timeZoneId.isDefined =>
      !t.zoneId.getRules.isFixedOffset
    case _ => true
  }

  /**
   * Whether `ts + interval` adds days in local time, so that it follows the session zone's
   * offset jumps (and is not monotone across a fall-back): a calendar interval, or a day-time
   * interval that may hold a day (Spark 4.1 adds `INTERVAL '1' DAY` as a local day: 25 hours
   * across a fall-back). A constant day-time interval under a day is exact microseconds.
   */
  private def addsLocalDays(t: TimestampAddInterval): Boolean = t.interval.dataType match {
    case _: DayTimeIntervalType if t.interval.foldable =>
      Option(t.interval.eval()).forall(v => math.abs(v.asInstanceOf[Long]) >= 86400L * 1000000L)
    case _ => true
  }

  private val ansi = EvalMode.ANSI

  private def numeric(e: Expression): Boolean = e.dataType.isInstanceOf[NumericType]

  private def raisesIf(ansiMode: Boolean): Raises = if (ansiMode) Raises.AtTails else Raises.Never

  private def arithmeticRaises(mode: EvalMode.Value): Raises = raisesIf(mode == EvalMode.ANSI)

  private def arithmeticTwin(b: BinaryArithmetic): Option[Expression] =
    if (b.evalMode == EvalMode.ANSI) None
    else b match {
      case a: Add => Some(a.copy(evalContext = a.evalContext.copy(evalMode = ansi)))
      case s: Subtract => Some(s.copy(evalContext = s.evalContext.copy(evalMode = ansi)))
      case m: Multiply => Some(m.copy(evalContext = m.evalContext.copy(evalMode = ansi)))
      case d: Divide => Some(d.copy(evalContext = d.evalContext.copy(evalMode = ansi)))
      case d: IntegralDivide => Some(d.copy(evalContext = d.evalContext.copy(evalMode = ansi)))
      case _ => None
    }

  /** `date_add`/`date_sub` wrap around on int overflow: the twin adds days with ANSI checks. */
  private def dateArithmeticTwin(d: BinaryExpression, op: (Expression, Expression) => Expression) =
    DateFromUnixDate(op(UnixDate(d.left), Cast(d.right, IntegerType, None, ansi)))

  /** `x * c`, `c * x`, `x / c`, `x div c`: monotone in `x`, in the direction of the sign of `c`. */
  private def byConstant(
      e: BinaryArithmetic,
      mode: EvalMode.Value,
      left: Expression,
      right: Expression,
      commutes: Boolean): Option[Monotone] = {
    def sign(c: Expression): Option[Int] = Interpreter.constant(c).flatMap {
      case Some(v: Double) if v.isNaN || v.isInfinite => None
      case Some(v: Float) if v.isNaN || v.isInfinite => None
      case Some(v) => Some(java.lang.Double.compare(c.dataType match {
        case _: DecimalType => v.asInstanceOf[Decimal].toDouble
        case _ => v.asInstanceOf[Number].doubleValue()
      }, 0.0).sign)
      case None => None
    }
    def direction(s: Int): Option[Direction] =
      if (s > 0) Some(Up) else if (s < 0) Some(Down) else if (commutes) Some(Up) else None
    val dirs = sign(right).flatMap(direction).map(d => Vector(d, Fixed))
      .orElse(if (commutes) sign(left).flatMap(direction).map(d => Vector(Fixed, d)) else None)
    dirs.map(Monotone(_, arithmeticRaises(mode), arithmeticTwin(e)))
  }

  private def cast(c: Cast): Option[Monotone] = {
    val checked = if (c.evalMode == EvalMode.ANSI) None else Some(c.copy(evalMode = ansi))
    val raises = arithmeticRaises(c.evalMode)
    (c.child.dataType, c.dataType) match {
      case (from, to) if from == to => Some(Monotone(Vector(Up), Raises.Never))
      case (_: NumericType, _: NumericType) => Some(Monotone(Vector(Up), raises, checked))
      case (DateType, TimestampType) => Some(Monotone(Vector(Up), Raises.AtTails))
      case (DateType, TimestampNTZType) => Some(Monotone(Vector(Up), Raises.AtTails))
      case (TimestampNTZType, DateType) => Some(Monotone(Vector(Up), Raises.Never))
      case (TimestampType, DateType) | (TimestampType, TimestampNTZType) |
           (TimestampNTZType, TimestampType) =>
        Some(Monotone(Vector(Up), Raises.AtTails, zoneDependent = true))
      case (TimestampType, LongType | DoubleType) => Some(Monotone(Vector(Up), Raises.Never))
      case (ByteType | ShortType | IntegerType | LongType, TimestampType) => Some(Monotone(Vector(Up), Raises.AtTails, checked))
      case _ => None
    }
  }
}
