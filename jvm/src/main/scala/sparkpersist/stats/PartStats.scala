package sparkpersist.stats

/**
 * Statistics of one column (or of one nested value, see [[NestedStats]]) in one part. Bounds are
 * Catalyst internal values of the column's type (Long for timestamps, Int for dates, UTF8String
 * for strings, Array[Byte] for binary, Decimal, ...), ordered as Spark orders that type (NaN is
 * the largest float/double).
 *
 * `lower` is <= every non-null value and `upper` is >= every non-null value; for strings and
 * binary they may be truncated (a prefix below, a bumped prefix above) and `upper` may be
 * absent. Absent bounds mean "unbounded on that side". When every value is null, both are
 * absent and `nullCount` equals the number of values.
 *
 * `nested` describes what is inside the values (struct fields, array elements, map entries,
 * the JSON document of a VARIANT or JSON text column); absent means "anything".
 *
 * `casts` (top-level string columns; JSON places have their own, see [[JsonStats]]) says what the values become under `CAST` to numbers,
 * dates and timestamps; absent means "anything" (no value parses, or the stats were trimmed or
 * written without them).
 *
 * `members` (indexed columns only) answers point lookups ([[MembershipFilter]]); absent means
 * "anything".
 *
 * `variantParse` (JSON text columns only) counts the values Spark's `parse_json` accepts
 * ([[VariantParse]]); absent means "`parse_json` may raise".
 */
final case class ColumnStats(
    nullCount: Long,
    lower: Option[Any],
    upper: Option[Any],
    nested: Option[NestedStats] = None,
    casts: Option[CastStats] = None,
    members: Option[MembershipFilter] = None,
    variantParse: Option[VariantParse] = None) {
  override def equals(o: Any): Boolean = o match {
    case c: ColumnStats =>
      nullCount == c.nullCount && StatValues.same(lower, c.lower) &&
        StatValues.same(upper, c.upper) && nested == c.nested && casts == c.casts &&
        members == c.members && variantParse == c.variantParse
    case _ => false
  }
  override def hashCode(): Int = nullCount.hashCode()
}

/**
 * Statistics of one part: row count, byte size, and per-column stats keyed by stable column id.
 * A column missing from `columns` has no stats (readers assume anything). `trimmed` names the
 * columns whose stats were widened or dropped to fit the stats budget.
 */
final case class PartStats(
    rowCount: Long,
    bytes: Long,
    columns: Map[Int, ColumnStats],
    trimmed: Set[Int] = Set.empty)

/**
 * What a part's stats know about the inside of a column's values. Every piece is optional in
 * the same direction: a missing field, key, element or bound widens what readers assume, never
 * narrows it, so trimming (dropping pieces) is always sound. Counts are never dropped: a kind
 * of value with a count of zero is one that provably does not occur.
 */
sealed trait NestedStats

/**
 * A struct column: for each listed field, the stats of `column.field` over every row of the part
 * (null where the struct itself or the field is null), so `fields(f).nullCount` is out of the
 * part's row count. A field not listed has no stats.
 */
final case class StructStats(fields: Map[String, ColumnStats]) extends NestedStats

/**
 * An array column: over its non-null arrays, the fewest and most elements (`minSize <=
 * maxSize`), and the stats of every element of every array (`elementCount` elements in all,
 * `elements.nullCount` of them null). `elements` absent: elements may be anything.
 */
final case class ArrayStats(
    minSize: Int,
    maxSize: Int,
    elementCount: Long,
    elements: Option[ColumnStats]) extends NestedStats

/**
 * A map column: over its non-null maps, the fewest and most entries, and the stats of every key
 * and every value of every map (`entryCount` entries in all).
 */
final case class MapStats(
    minSize: Int,
    maxSize: Int,
    entryCount: Long,
    keys: Option[ColumnStats],
    values: Option[ColumnStats]) extends NestedStats

/**
 * The JSON values found at one place of a VARIANT or JSON text column: the column's top-level
 * values, the values under one object key, or the elements of arrays. As Materialize's
 * `JsonbStats`: one section per kind of JSON value, each with how many values of that kind were
 * seen there, so a place whose values mix kinds keeps one bound per kind.
 *
 * @param count     values seen at this place (of every kind, JSON null included). For an object
 *                  key, the number of objects that have the key; fewer than the objects'
 *                  count means the key is missing from some of them.
 * @param jsonNulls JSON `null` values among them
 * @param booleans  `true`/`false` values: bounds are Booleans
 * @param numbers   number values: bounds are exact `java.math.BigDecimal`s
 * @param strings   string values: bounds are `UTF8String`s, possibly truncated as [[Bounds]] does,
 *                  and a membership filter of them where they are few
 * @param objects   object values and their keys
 * @param arrays    array values and their elements
 * @param others    values of the other VARIANT types (dates, timestamps, binary, UUIDs, ...):
 *                  counted, never bounded
 * @param casts     what the `strings.count` string values become under `CAST` to numbers, dates
 *                  and timestamps, as for a string column's `casts`; absent means "anything"
 */
final case class JsonStats(
    count: Long,
    jsonNulls: Long,
    booleans: JsonScalarStats,
    numbers: JsonNumberStats,
    strings: JsonScalarStats,
    objects: JsonObjectStats,
    arrays: JsonArrayStats,
    others: Long,
    casts: Option[CastStats] = None) extends NestedStats

object JsonStats {
  /** Nothing seen (yet): no values of any kind. */
  val empty: JsonStats = JsonStats(0, 0, JsonScalarStats.none, JsonNumberStats.none,
    JsonScalarStats.none, JsonObjectStats.none, JsonArrayStats.none, 0)
}

/**
 * `count` values of one scalar JSON kind; bounds absent mean unbounded on that side. `members`
 * (strings only, at places with few distinct strings: [[AutoIndex]]'s limit) answers lookups of
 * strings ([[MembershipFilter]]); absent means "anything".
 */
final case class JsonScalarStats(count: Long, lower: Option[Any], upper: Option[Any],
    members: Option[MembershipFilter] = None) {
  override def equals(o: Any): Boolean = o match {
    case s: JsonScalarStats =>
      count == s.count && StatValues.same(lower, s.lower) && StatValues.same(upper, s.upper) && members == s.members
    case _ => false
  }
  override def hashCode(): Int = count.hashCode()
}

object JsonScalarStats {
  val none: JsonScalarStats = JsonScalarStats(0, None, None)
}

/**
 * `count` JSON numbers, with exact bounds (absent when unknown, e.g. a VARIANT double that is
 * NaN or infinite); `integral` is true when every one of them has no fractional part (whatever
 * its VARIANT type: 3, 3.0 and 3e0 all count as integral). For JSON text, `integral` is stricter:
 * every number was written as an integer literal (no fraction, no exponent), because that is
 * what decides whether `CAST(get_json_object(...) AS BIGINT)` accepts its text under ANSI.
 * `members`, where every number is an exact integer within the range of a long (for JSON text: an
 * integer literal) and they take few distinct values, is the membership filter of those integers
 * (hashed as longs); absent means "anything".
 */
final case class JsonNumberStats(
    count: Long,
    lower: Option[java.math.BigDecimal],
    upper: Option[java.math.BigDecimal],
    integral: Boolean,
    members: Option[MembershipFilter] = None) {
  override def equals(o: Any): Boolean = o match {
    case s: JsonNumberStats =>
      count == s.count && integral == s.integral && sameNumber(lower, s.lower) && sameNumber(upper, s.upper) &&
        members == s.members
    case _ => false
  }
  override def hashCode(): Int = count.hashCode()
  private def sameNumber(a: Option[java.math.BigDecimal], b: Option[java.math.BigDecimal]): Boolean =
    (a, b) match {
      case (Some(x), Some(y)) => x.compareTo(y) == 0
      case _ => a.isEmpty && b.isEmpty
    }
}

object JsonNumberStats {
  val none: JsonNumberStats = JsonNumberStats(0, None, None, integral = true)
}

/**
 * `count` JSON objects; `keys` gives the stats of the values under each listed key. A key not
 * listed may hold anything (or be missing): keys are dropped to fit the stats budget.
 */
final case class JsonObjectStats(count: Long, keys: Map[String, JsonStats])

object JsonObjectStats {
  val none: JsonObjectStats = JsonObjectStats(0, Map.empty)
}

/**
 * `count` JSON arrays of `minSize` to `maxSize` elements (0/0 when count is 0), and the stats
 * of all their elements together (absent: anything).
 */
final case class JsonArrayStats(count: Long, minSize: Int, maxSize: Int, elements: Option[JsonStats])

object JsonArrayStats {
  val none: JsonArrayStats = JsonArrayStats(0, 0, 0, None)
}

private[sparkpersist] object StatValues {
  def same(a: Option[Any], b: Option[Any]): Boolean = (a, b) match {
    case (Some(x: Array[Byte]), Some(y: Array[Byte])) => java.util.Arrays.equals(x, y)
    case (Some(x: Double), Some(y: Double)) => java.lang.Double.compare(x, y) == 0
    case (Some(x: Float), Some(y: Float)) => java.lang.Float.compare(x, y) == 0
    case (Some(x: java.math.BigDecimal), Some(y: java.math.BigDecimal)) => x.compareTo(y) == 0
    case _ => a == b
  }
}
