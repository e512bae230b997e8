package sparkpersist.interpret

import java.math.{BigDecimal => JBigDecimal, RoundingMode}

import org.apache.spark.sql.catalyst.expressions.EvalMode
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.interpret.Values._

/**
 * What a JSON value becomes when read as a SQL type, kind by kind, as Spark 4.1 evaluates it
 * (checked against Spark in `JsonInterpreterSuite` and the JSON soundness property):
 *
 *  - `variant_get(v, path, type)`, `try_variant_get` and `CAST(variant AS type)`
 *    (`VariantGet.cast`): a JSON null is SQL NULL; a scalar goes through a TRY cast from its own
 *    type, and a failure is invalid (INVALID_VARIANT_CAST whatever the ANSI mode, or NULL for
 *    `try_`); numbers to integral types truncate toward zero and are invalid out of range;
 *    booleans are 0/1; objects and arrays are invalid except to STRING (their JSON text); strings
 *    cast as the place's cast stats say, ANSI grammar (`try_cast`'s) whatever the mode.
 *  - `CAST(get_json_object(text, path) AS type)`: the JSON text of the value is cast from
 *    STRING; a string value is its text unquoted, cast as the place's cast stats say. An integer literal prints as its digits; any other number prints as its double
 *    (`1.5e3` is `1500.0`, `1e400` is `"Infinity"`), which an ANSI cast to an integral type
 *    refuses, as it refuses `true` and JSON text of objects and arrays. A JSON null is NULL
 *    under a key but the text `null` at the top level (`get_json_object('null', '$')`).
 *
 * Each returns the [[Outcome]] over the non-null kinds: the values that may come out, and whether
 * some value may be invalid. Targets not listed below: anything, maybe invalid.
 */
object JsonCasts {

  /** The possible values, and whether some value may fail to cast. */
  final case class Outcome(values: Values, invalid: Boolean)

  /**
   * `VariantGet.cast` of a value of spec `js` to `target`, timestamps in time zone `zone`. A
   * string goes through `Cast(string, target, zone, TRY)` (the ANSI grammar for integral targets),
   * read from the strings' cast stats ([[TextCasts]]) for a numeric, date or timestamp target.
   */
  def fromVariant(js: JsonSpec, target: DataType, zone: Option[String]): Outcome = {
    val ord = ValueOrdering.of(target).orNull
    val fromText = TextCasts.supportedTarget(target)
    if (!supported(target) && !fromText) unsupported(js)
    else {
      val out = new Accumulator(ord)
      // The other kinds to DECIMAL, DATE and TIMESTAMP are not interpreted: anything.
      if (js.booleans != Empty) out.add(if (supported(target)) booleanTo(js.booleans, target) else anyInvalid)
      if (js.numbers != Empty) out.add(if (supported(target)) numberTo(js.numbers, target, exactText = true) else anyInvalid)
      if (js.strings != Empty) out.add(
        if (isString(target)) Outcome(js.strings, invalid = false)
        else if (fromText) stringsTo(js, TextCasts.TextCast(target, EvalMode.TRY, zone), ord)
        else anyInvalid)
      if (js.objects || js.arrays) out.add(if (isString(target)) anyValid else Outcome(Empty, invalid = true))
      if (js.others) out.add(if (isString(target)) anyValid else anyInvalid)
      out.result
    }
  }

  /** Targets that `CAST(get_json_object(...) AS target)` is interpreted for. */
  def textTarget(target: DataType): Boolean = TextCasts.supportedTarget(target)

  /**
   * `CAST(s AS target)` of the JSON text `s` of a value of spec `js` (see [[textTarget]]); `cast`
   * says how the strings are cast (mode and zone; None: they may give anything).
   */
  def fromText(js: JsonSpec, target: DataType, cast: Option[TextCasts.TextCast]): Outcome = {
    val ord = ValueOrdering.of(target).get
    val out = new Accumulator(ord)
    if (js.numbers != Empty) {
      val n = numberTo(js.numbers, target, exactText = false)
      out.add(if (integral(target) && !js.integral) n.copy(invalid = true) else n)
    }
    if (js.strings != Empty) out.add(cast.fold(anyInvalid)(stringsTo(js, _, ord)))
    if (js.others) out.add(anyInvalid)
    if (js.booleans != Empty || js.objects || js.arrays || js.jsonNull) out.add(Outcome(Empty, invalid = true))
    out.result
  }

  /** The strings of `js` cast as `cast` says, from their places' cast stats (none: anything). */
  private def stringsTo(js: JsonSpec, cast: TextCasts.TextCast, ord: Ordering[Any]): Outcome = {
    val outcomes = js.casts.getOrElse(Nil).map(p => TextCasts.outcome(p.stats, p.strings, cast))
    if (outcomes.isEmpty || outcomes.contains(None)) anyInvalid
    else {
      val out = new Accumulator(ord)
      outcomes.flatten.foreach(out.add)
      out.result
    }
  }

  /**
   * `get_json_object` itself: a string value unquoted, anything else as JSON text. A JSON null
   * is SQL NULL under a key, but the text `null` when the path selects a top-level null.
   */
  def text(js: JsonSpec): Outcome =
    if (!js.onlyStrings) Outcome(All, invalid = false)
    else if (js.jsonNull) Outcome(Values.union(js.strings, Values.point(NullText), JsonSpec.StringOrder), invalid = false)
    else Outcome(js.strings, invalid = false)

  private val NullText = UTF8String.fromString("null")

  private val anyValid = Outcome(All, invalid = false)
  private val anyInvalid = Outcome(All, invalid = true)

  private def unsupported(js: JsonSpec): Outcome = {
    val hasValues = js.booleans != Empty || js.numbers != Empty || js.strings != Empty ||
      js.objects || js.arrays || js.others
    if (hasValues) anyInvalid else Outcome(Empty, invalid = false)
  }

  private def supported(t: DataType): Boolean = t == BooleanType || integral(t) || t == FloatType ||
    t == DoubleType || isString(t)

  private def isString(t: DataType): Boolean = t.isInstanceOf[StringType] && ValueOrdering.isRanged(t)

  private def integral(t: DataType): Boolean = t match {
    case ByteType | ShortType | IntegerType | LongType => true
    case _ => false
  }

  private def booleanTo(range: Values, target: DataType): Outcome = range match {
    case Within(lo: Boolean, hi: Boolean) =>
      def as(b: Boolean): Any = target match {
        case BooleanType => b
        case _: StringType => UTF8String.fromString(b.toString)
        case FloatType => if (b) 1.0f else 0.0f
        case DoubleType => if (b) 1.0 else 0.0
        case t => integralValue(if (b) JBigDecimal.ONE else JBigDecimal.ZERO, t)
      }
      Outcome(Within(as(lo), as(hi)), invalid = false)
    case _ => if (target == BooleanType) anyValid else Outcome(All, invalid = false)
  }

  /**
   * Numbers in `range` to `target`. `exactText`: a variant number keeps its exact value (a long,
   * a decimal or a double); JSON text prints doubles, so out-of-range doubles become
   * `"Infinity"`, which no numeric cast accepts.
   */
  private def numberTo(range: Values, target: DataType, exactText: Boolean): Outcome =
    (range, target) match {
      case (Within(lo: JBigDecimal, hi: JBigDecimal), t) if integral(t) =>
        val (min, max) = integralRange(t)
        val invalid = lo.compareTo(min) < 0 || hi.compareTo(max) > 0
        val l = truncate(lo.max(min))
        val h = truncate(hi.min(max))
        if (l.compareTo(h) > 0) Outcome(Empty, invalid)
        else Outcome(Within(integralValue(l, t), integralValue(h, t)), invalid)
      case (Within(lo: JBigDecimal, hi: JBigDecimal), FloatType | DoubleType) =>
        val l = lo.doubleValue()
        val h = hi.doubleValue()
        // Two ulps of slack: Spark's decimal-to-double may round twice.
        if (!exactText && (l.isInfinite || h.isInfinite)) anyInvalid
        else if (target == FloatType) {
          Outcome(Within(Math.nextDown(Math.nextDown(lo.floatValue())), Math.nextUp(Math.nextUp(hi.floatValue()))),
            invalid = false)
        } else Outcome(Within(Math.nextDown(Math.nextDown(l)), Math.nextUp(Math.nextUp(h))), invalid = false)
      case (Within(lo: JBigDecimal, hi: JBigDecimal), BooleanType) =>
        val values =
          if (lo.signum() > 0 || hi.signum() < 0) Within(true, true)
          else if (lo.signum() == 0 && hi.signum() == 0) Within(false, false)
          else Within(false, true)
        Outcome(values, invalid = false)
      case (_, BooleanType) => anyValid
      case (_, _: StringType) => anyValid
      case (_, FloatType | DoubleType) if exactText => anyValid // NaN and infinities cast as they are
      case _ => anyInvalid
    }

  private def truncate(d: JBigDecimal): JBigDecimal = d.setScale(0, RoundingMode.DOWN)

  private def integralRange(t: DataType): (JBigDecimal, JBigDecimal) = t match {
    case ByteType => (JBigDecimal.valueOf(Byte.MinValue.toLong), JBigDecimal.valueOf(Byte.MaxValue.toLong))
    case ShortType => (JBigDecimal.valueOf(Short.MinValue.toLong), JBigDecimal.valueOf(Short.MaxValue.toLong))
    case IntegerType => (JBigDecimal.valueOf(Int.MinValue.toLong), JBigDecimal.valueOf(Int.MaxValue.toLong))
    case _ => (JBigDecimal.valueOf(Long.MinValue), JBigDecimal.valueOf(Long.MaxValue))
  }

  private def integralValue(d: JBigDecimal, t: DataType): Any = t match {
    case ByteType => d.byteValueExact()
    case ShortType => d.shortValueExact()
    case IntegerType => d.intValueExact()
    case _ => d.longValueExact()
  }

  /** Unions outcomes in the target's order. */
  private final class Accumulator(ord: Ordering[Any]) {
    private var values: Values = Empty
    private var invalid = false
    def add(o: Outcome): Unit = {
      values = Values.union(values, o.values, ord)
      invalid ||= o.invalid
    }
    def result: Outcome = Outcome(values, invalid)
  }
}
