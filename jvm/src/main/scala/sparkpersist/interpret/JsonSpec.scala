package sparkpersist.interpret

import java.math.{BigDecimal => JBigDecimal}

import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.interpret.Values._
import sparkpersist.stats.{CastStats, JsonScalarStats, JsonStats, MembershipFilter}

/**
 * What a JSON value at one place may be, kind by kind (the abstract counterpart of
 * [[sparkpersist.stats.JsonStats]]). Each scalar kind has its own range, [[Values.Empty]] when
 * the kind does not occur: booleans over `false < true`, numbers over exact
 * `java.math.BigDecimal`s, strings over `UTF8String`s in binary order.
 *
 * @param jsonNull may be a JSON `null`
 * @param integral every number has no fractional part (for JSON text: is an integer literal)
 * @param elements the spec of array elements, themselves JSON values (nullable: an index may be
 *                 out of range)
 * @param others   may be another VARIANT type (date, timestamp, binary, UUID, ...)
 * @param casts    what the strings become under casts: the cast stats of each place they may come
 *                 from; None (or strings from a place without them): anything
 * @param members  which strings may occur: the membership filters of each place they may come
 *                 from (a string may occur if one of them admits it); None: any string
 * @param numberMembers which integers may occur, likewise, where every number is an integer of a
 *                 long; None: any number
 */
final case class JsonSpec(
    jsonNull: Boolean,
    booleans: Values,
    numbers: Values,
    integral: Boolean,
    strings: Values,
    objects: Boolean,
    arrays: Boolean,
    elements: ResultSpec,
    others: Boolean,
    casts: Option[Seq[PlaceCasts]] = None,
    members: Option[Seq[MembershipFilter]] = None,
    numberMembers: Option[Seq[MembershipFilter]] = None) {
  import JsonSpec._

  def union(o: JsonSpec): JsonSpec = JsonSpec(
    jsonNull || o.jsonNull,
    Values.union(booleans, o.booleans, BooleanOrder),
    Values.union(numbers, o.numbers, NumberOrder),
    integral && o.integral,
    Values.union(strings, o.strings, StringOrder),
    objects || o.objects,
    arrays || o.arrays,
    elements.union(o.elements, null),
    others || o.others,
    bySource(strings, casts, o.strings, o.casts),
    bySource(strings, members, o.strings, o.members),
    bySource(numbers, numberMembers, o.numbers, o.numberMembers))

  /**
   * What the union knows of one kind's values from what each side knows of its own (`values`, and
   * per source place `known`, None: anything): a side without values of the kind adds nothing.
   */
  private def bySource[T](values: Values, known: Option[Seq[T]], otherValues: Values, otherKnown: Option[Seq[T]]): Option[Seq[T]] =
    if (values == Empty) otherKnown else if (otherValues == Empty) known else for (a <- known; b <- otherKnown) yield a ++ b

  /** Whether every value that is neither null nor a JSON null is an object. */
  def onlyObjects: Boolean =
    booleans == Empty && numbers == Empty && strings == Empty && !arrays && !others

  /** Whether every non-null value is a string. */
  def onlyStrings: Boolean =
    booleans == Empty && numbers == Empty && !objects && !arrays && !others

  /** Whether every non-null value is a number. */
  def onlyNumbers: Boolean =
    booleans == Empty && strings == Empty && !objects && !arrays && !others
}

object JsonSpec {
  val BooleanOrder: Ordering[Any] = Ordering.Boolean.asInstanceOf[Ordering[Any]]
  val NumberOrder: Ordering[Any] = Ordering.fromLessThan[Any] { (a, b) =>
    a.asInstanceOf[JBigDecimal].compareTo(b.asInstanceOf[JBigDecimal]) < 0
  }
  val StringOrder: Ordering[Any] = Ordering.fromLessThan[Any] { (a, b) =>
    a.asInstanceOf[UTF8String].binaryCompare(b.asInstanceOf[UTF8String]) < 0
  }

  /** Any JSON value at all. */
  val Any: JsonSpec = JsonSpec(jsonNull = true, All, All, integral = false, All, objects = true,
    arrays = true, ResultSpec.AnyValue, others = true)

  /** The kinds a JSON-valued spec's values admit: none for Empty, [[Any]] unless described. */
  def of(values: Values): Option[JsonSpec] = values match {
    case Empty => None
    case n: Nested => Some(n.json.getOrElse(Any))
    case _ => Some(Any)
  }

  /** The values a place with stats `s` may hold (a [[Values.Nested]] with its [[JsonSpec]]). */
  def values(s: JsonStats): Values =
    if (s.count == 0) Empty
    else {
      val keys = s.objects.keys.map { case (k, ks) =>
        k -> ResultSpec(nullable = ks.count < s.objects.count, fallible = false, values(ks))
      }
      val elements = s.arrays.elements.fold(ResultSpec.AnyValue)(e =>
        ResultSpec(nullable = true, fallible = false, values(e)))
      Nested(keys, Some(JsonSpec(
        jsonNull = s.jsonNulls > 0,
        booleans = range[java.lang.Boolean](s.booleans, BooleanOrder),
        numbers = if (s.numbers.count == 0) Empty else bounded(s.numbers.lower, s.numbers.upper, NumberOrder),
        integral = s.numbers.integral,
        strings = range[UTF8String](s.strings, StringOrder),
        objects = s.objects.count > 0,
        arrays = s.arrays.count > 0,
        elements = elements,
        others = s.others > 0,
        casts = s.casts.map(c => Seq(PlaceCasts(c, s.strings.count))),
        members = s.strings.members.map(Seq(_)),
        numberMembers = s.numbers.members.map(Seq(_)))))
    }

  private def range[T](s: JsonScalarStats, ord: Ordering[Any])(implicit ct: scala.reflect.ClassTag[T]): Values =
    if (s.count == 0) Empty
    else bounded(s.lower.filter(ct.runtimeClass.isInstance), s.upper.filter(ct.runtimeClass.isInstance), ord)

  private def bounded(lo: Option[Any], hi: Option[Any], ord: Ordering[Any]): Values = (lo, hi) match {
    case (Some(l), Some(h)) if ord.lteq(l, h) => Within(l, h)
    case _ => All
  }
}

/** The [[CastStats]] of the `strings` string values at one place of a JSON document. */
final case class PlaceCasts(stats: CastStats, strings: Long)
