package sparkpersist.interpret

/**
 * The non-null values an expression may produce over one part, as a set of Catalyst internal
 * values. Ranges are ordered by the result type's ordering (see [[ValueOrdering]]), so every
 * operation that compares values takes that ordering.
 */
sealed trait Values

object Values {
  /** No non-null value at all (the result is only ever null or an error). */
  case object Empty extends Values

  /** Every value `v` with `lo <= v <= hi` (inclusive, `lo <= hi`). */
  final case class Within(lo: Any, hi: Any) extends Values

  /** Any value of the type. */
  case object All extends Values

  /**
   * Values of a struct (or a JSON/VARIANT document) described field by field; a field that is
   * not listed may hold anything. The struct itself may be any value with those fields.
   *
   * For a JSON document (a VARIANT value, or a string column's JSON text), `json` says which
   * kinds of JSON value it may be ([[JsonSpec]]), and `fields` describe the values under object
   * keys, as JSON documents again; a field's spec is nullable when the key may be missing.
   * Structs leave `json` absent.
   */
  final class Nested(val fields: Map[String, ResultSpec], val json: Option[JsonSpec]) extends Values {
    override def equals(o: Any): Boolean = o match {
      case n: Nested => fields == n.fields && json == n.json
      case _ => false
    }
    override def hashCode(): Int = fields.hashCode()
    override def toString: String = json.fold(s"Nested($fields)")(j => s"Nested($fields, $j)")
  }

  object Nested {
    def apply(fields: Map[String, ResultSpec], json: Option[JsonSpec] = None): Nested = new Nested(fields, json)
    def unapply(n: Nested): Some[Map[String, ResultSpec]] = Some(n.fields)
  }

  def point(v: Any): Values = Within(v, v)

  def union(a: Values, b: Values, ord: Ordering[Any]): Values = (a, b) match {
    case (Empty, x) => x
    case (x, Empty) => x
    case (Within(l1, h1), Within(l2, h2)) =>
      // No ordering: the union of struct (array, map) specs reached fields with ranges.
      if (ord == null) All else Within(ord.min(l1, l2), ord.max(h1, h2))
    case (n1 @ Nested(f1), n2 @ Nested(f2)) =>
      // A field missing on either side may hold anything, so only common fields stay.
      // Field ranges need the field's ordering, which `ord` (the struct's) is not: they widen.
      Nested(f1.collect { case (k, s) if f2.contains(k) => k -> s.union(f2(k), ord) },
        for (j1 <- n1.json; j2 <- n2.json) yield j1.union(j2))
    case _ => All
  }

  def intersect(a: Values, b: Values, ord: Ordering[Any]): Values = (a, b) match {
    case (Empty, _) | (_, Empty) => Empty
    case (All, x) => x
    case (x, All) => x
    case (Within(_, _), Within(_, _)) if ord == null => a
    case (Within(l1, h1), Within(l2, h2)) =>
      val lo = ord.max(l1, l2)
      val hi = ord.min(h1, h2)
      if (ord.lteq(lo, hi)) Within(lo, hi) else Empty
    case (n1 @ Nested(f1), n2 @ Nested(f2)) =>
      Nested(f1 ++ f2.map { case (k, s) => k -> f1.get(k).fold(s)(_.intersect(s, ord)) },
        n1.json.orElse(n2.json))
    // A struct range and a per-field description: keep the range (sound, coarser).
    case (x, _) => x
  }

  def mayContain(values: Values, v: Any, ord: Ordering[Any]): Boolean = values match {
    case Empty => false
    case Within(lo, hi) => ord.lteq(lo, v) && ord.lteq(v, hi)
    case All | Nested(_) => true
  }
}

/**
 * What evaluating an expression may produce over every row a part's statistics admit: null
 * (`nullable`), an error (`fallible`), and which non-null `values`. It is an
 * over-approximation: a concrete result outside the spec is a bug, a spec admitting results
 * that never occur only costs pruning.
 *
 * Boolean results use `values` over `false < true`; a filter keeps a part iff the result
 * [[mayBeTrue]] or [[mayFail]] (null and false both drop the row).
 */
final case class ResultSpec(nullable: Boolean, fallible: Boolean, values: Values) {
  import Values._

  def union(other: ResultSpec, ord: Ordering[Any]): ResultSpec =
    ResultSpec(nullable || other.nullable, fallible || other.fallible,
      Values.union(values, other.values, ord))

  def intersect(other: ResultSpec, ord: Ordering[Any]): ResultSpec =
    ResultSpec(nullable && other.nullable, fallible && other.fallible,
      Values.intersect(values, other.values, ord))

  /** Whether the concrete value `v` (null for SQL NULL) is admitted. */
  def mayContain(v: Any, ord: Ordering[Any]): Boolean =
    if (v == null) nullable else Values.mayContain(values, v, ord)

  /** For a boolean result: may it be `true`? */
  def mayBeTrue: Boolean = values match {
    case Within(_, hi) => hi.asInstanceOf[Boolean]
    case Empty => false
    case _ => true
  }

  /** For a boolean result: may it be `false`? */
  def mayBeFalse: Boolean = values match {
    case Within(lo, _) => !lo.asInstanceOf[Boolean]
    case Empty => false
    case _ => true
  }

  def mayFail: Boolean = fallible

  /** Whether some non-null value is possible. */
  def hasValues: Boolean = values != Empty

  /** The same spec that may also be an error. */
  def orFail: ResultSpec = if (fallible) this else copy(fallible = true)

  /** The same spec that may also be null. */
  def orNull: ResultSpec = if (nullable) this else copy(nullable = true)
}

object ResultSpec {
  import Values._

  /** Anything at all: null, an error or any value. What unknown expressions give. */
  val Anything: ResultSpec = ResultSpec(nullable = true, fallible = true, All)

  /** Any value or null, but never an error: a column without statistics. */
  val AnyValue: ResultSpec = ResultSpec(nullable = true, fallible = false, All)

  val AlwaysNull: ResultSpec = ResultSpec(nullable = true, fallible = false, Empty)

  def point(v: Any): ResultSpec =
    if (v == null) AlwaysNull else ResultSpec(nullable = false, fallible = false, Within(v, v))

  private val boolValues: Array[Values] =
    Array(Empty, Within(false, false), Within(true, true), Within(false, true))

  /** A boolean result from which truth values are possible. */
  def bool(mayBeFalse: Boolean, mayBeTrue: Boolean, nullable: Boolean, fallible: Boolean): ResultSpec =
    ResultSpec(nullable, fallible,
      boolValues((if (mayBeFalse) 1 else 0) | (if (mayBeTrue) 2 else 0)))
}
