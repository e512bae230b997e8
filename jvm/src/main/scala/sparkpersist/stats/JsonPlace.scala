package sparkpersist.stats

import java.math.{BigDecimal => JBigDecimal}

import org.apache.spark.unsafe.types.UTF8String

/**
 * Accumulates the [[JsonStats]] of one place of a JSON document column (the top level, the
 * values under one object key, or the elements of arrays) while a part is written. The VARIANT
 * and JSON text collectors walk each row's document and report every value to the place it sits
 * at; `result` builds the stats.
 *
 * Places nest: an object value's keys get their own places, array elements share one. Two
 * guards keep adversarial documents from blowing up memory ([[JsonLimits]]): places deeper than
 * `maxDepth` record the kinds of their values but neither keys nor elements, and once a column
 * tracks `maxKeys` keys in all, new keys are not tracked. Both are sound: a key that is not
 * listed, or arrays without element stats, admit anything.
 *
 * With a cast zone, string values also go through Spark's casts ([[CastStatsCollector]], one per
 * place that holds strings), so `CAST(get_json_object(...) AS BIGINT)` and `variant_get(..., 'bigint')`
 * over numbers written as text have bounds too.
 *
 * Numbers are tracked in three primitive ranges (longs, finite doubles, decimals) merged into
 * exact `BigDecimal` bounds at the end, so the common case costs no allocation per value.
 */
final class JsonPlace(depth: Int, limits: JsonLimits, keyBudget: JsonPlace.KeyBudget, castZone: Option[String]) {
  private var count = 0L
  private var jsonNulls = 0L
  private var others = 0L

  private var booleans = 0L
  private var sawFalse = false
  private var sawTrue = false

  private var numbers = 0L
  private var integral = true
  private var unboundedNumbers = false
  private var longMin = Long.MaxValue
  private var longMax = Long.MinValue
  private var doubleMin = Double.PositiveInfinity
  private var doubleMax = Double.NegativeInfinity
  private var decimalMin: JBigDecimal = _
  private var decimalMax: JBigDecimal = _
  /** Distinct hashes of the numbers while all are exact integers of a long, up to `limits.maxMembers`. */
  private val numberHashes = new CappedHashes(limits.maxMembers)
  private var integerMin = Long.MaxValue
  private var integerMax = Long.MinValue

  private var strings = 0L
  private val stringRange = new StringRange
  private var casts: CastStatsCollector = _
  /** Distinct hashes of the strings, up to `limits.maxMembers`. */
  private val stringHashes = new CappedHashes(limits.maxMembers)

  private var objects = 0L
  private var keys: java.util.HashMap[String, JsonPlace] = _

  private var arrays = 0L
  private var minSize = Int.MaxValue
  private var maxSize = 0
  private var elements: JsonPlace = _

  /** Whether objects and arrays at this place track their keys and elements. */
  val tracksChildren: Boolean = depth < limits.maxDepth

  def addNull(): Unit = { count += 1; jsonNulls += 1 }

  def addBoolean(b: Boolean): Unit = {
    count += 1
    booleans += 1
    if (b) sawTrue = true else sawFalse = true
  }

  def addLong(v: Long): Unit = {
    countNumber()
    if (v < longMin) longMin = v
    if (v > longMax) longMax = v
    addInteger(v)
  }

  /** Hashes an exact integer number for the filter of the numbers. */
  private def addInteger(v: Long): Unit =
    if (numberHashes.kept) {
      if (v < integerMin) integerMin = v
      if (v > integerMax) integerMax = v
      numberHashes.add(MembershipFilter.hashLong(v))
    }

  /** A floating point number; NaN and infinities leave the numbers unbounded. */
  def addDouble(v: Double): Unit = addDoubleBetween(v, v)

  /**
   * One number known only to lie in `[lo, hi]` (finite doubles, or NaN/infinite: unbounded),
   * such as a decimal literal of JSON text and its nearest double.
   */
  def addDoubleBetween(lo: Double, hi: Double): Unit = {
    countNumber()
    if (!isFinite(lo) || !isFinite(hi)) {
      unboundedNumbers = true
      integral = false
      numberHashes.abandon()
    } else {
      if (lo != hi || lo != Math.rint(lo)) integral = false
      if (lo < doubleMin) doubleMin = lo
      if (hi > doubleMax) doubleMax = hi
      // -2^63 and 2^63 are both doubles; only the first is a long.
      if (lo == hi && lo == Math.rint(lo) && lo >= -9.223372036854775808E18 && lo < 9.223372036854775808E18) addInteger(lo.toLong)
      else numberHashes.abandon()
    }
  }

  private def isFinite(d: Double): Boolean = !java.lang.Double.isNaN(d) && !java.lang.Double.isInfinite(d)

  /** An exact decimal number. */
  def addDecimal(v: JBigDecimal): Unit = {
    countNumber()
    if (integral && v.signum() != 0 && v.stripTrailingZeros().scale() > 0) integral = false
    if (numberHashes.kept) {
      val exact = scala.util.Try(v.longValueExact()).toOption // no fraction, within a long
      if (exact.isDefined) addInteger(exact.get) else numberHashes.abandon()
    }
    if (decimalMin == null || v.compareTo(decimalMin) < 0) decimalMin = v
    if (decimalMax == null || v.compareTo(decimalMax) > 0) decimalMax = v
  }

  private def countNumber(): Unit = { count += 1; numbers += 1 }

  /** A string, as Spark would see it (`UTF8String.fromString` of the decoded text). */
  def addString(s: UTF8String): Unit = {
    count += 1
    strings += 1
    stringRange.add(s)
    if (stringHashes.kept) stringHashes.add(MembershipFilter.hashString(s))
    if (castZone.isDefined) {
      if (casts == null) casts = new CastStatsCollector(castZone.get)
      casts.add(s)
    }
  }

  /** A value of another VARIANT type (date, timestamp, binary, UUID, ...): counted only. */
  def addOther(): Unit = { count += 1; others += 1 }

  /** An object value; then report each of its fields to [[key]]. */
  def addObject(): Unit = { count += 1; objects += 1 }

  /**
   * The place of the values under `name` in objects at this place, or null when they are not
   * tracked (too deep, or the key budget is spent).
   */
  def key(name: String): JsonPlace =
    if (!tracksChildren) null
    else {
      if (keys == null) keys = new java.util.HashMap[String, JsonPlace]()
      val existing = keys.get(name)
      if (existing != null) existing
      else if (!keyBudget.take()) null
      else {
        val place = new JsonPlace(depth + 1, limits, keyBudget, castZone)
        keys.put(name, place)
        place
      }
    }

  /** An array value of `size` elements (report them to [[elementPlace]]). */
  def addArray(size: Int): Unit = {
    count += 1
    arrays += 1
    if (size < minSize) minSize = size
    if (size > maxSize) maxSize = size
  }

  /** The place of the elements of arrays at this place, or null when they are not tracked. */
  def elementPlace(): JsonPlace =
    if (!tracksChildren) null
    else {
      if (elements == null) elements = new JsonPlace(depth + 1, limits, keyBudget, castZone)
      elements
    }

  /** The stats of every value reported so far; strings bounded to `boundChars` code points. */
  def result(boundChars: Int): JsonStats = {
    val bools =
      if (booleans == 0) JsonScalarStats.none
      else JsonScalarStats(booleans, Some(!sawFalse), Some(sawTrue))
    val strs =
      if (strings == 0) JsonScalarStats.none
      else {
        val max = stringRange.max
        JsonScalarStats(strings, Some(Bounds.stringLower(stringRange.min, boundChars)),
          Bounds.stringUpper(max, boundChars), stringMembers(max, boundChars))
      }
    val objs =
      if (objects == 0) JsonObjectStats.none
      else {
        val ks = Map.newBuilder[String, JsonStats]
        if (keys != null) keys.forEach((k, p) => ks += k -> p.result(boundChars))
        JsonObjectStats(objects, ks.result())
      }
    val arrs =
      if (arrays == 0) JsonArrayStats.none
      else JsonArrayStats(arrays, minSize, maxSize,
        if (tracksChildren) Some(if (elements == null) JsonStats.empty else elements.result(boundChars)) else None)
    JsonStats(count, jsonNulls, bools, numberStats, strs, objs, arrs, others,
      if (casts == null) None else casts.result())
  }

  /**
   * The filter of the strings, where it says more than their bounds: more than one distinct
   * string, or one longer than the bounds keep.
   */
  private def stringMembers(max: UTF8String, boundChars: Int): Option[MembershipFilter] =
    if (stringHashes.size < 2 && max.numChars() <= boundChars) None else stringHashes.filter

  private def numberStats: JsonNumberStats =
    if (numbers == 0) JsonNumberStats.none
    else if (unboundedNumbers) JsonNumberStats(numbers, None, None, integral)
    else {
      var lo: JBigDecimal = decimalMin
      var hi: JBigDecimal = decimalMax
      def widen(min: JBigDecimal, max: JBigDecimal): Unit = {
        if (lo == null || min.compareTo(lo) < 0) lo = min
        if (hi == null || max.compareTo(hi) > 0) hi = max
      }
      if (longMin <= longMax) widen(JBigDecimal.valueOf(longMin), JBigDecimal.valueOf(longMax))
      if (doubleMin <= doubleMax) widen(new JBigDecimal(doubleMin), new JBigDecimal(doubleMax))
      JsonNumberStats(numbers, Option(lo), Option(hi), integral, numberMembers)
    }

  /**
   * The filter of the numbers, all exact integers of a long, where it says more than their bounds:
   * more than one value, not filling their whole range (as [[AutoIndex.informative]]).
   */
  private def numberMembers: Option[MembershipFilter] =
    if (numberHashes.size < 2 || BigInt(integerMax) - BigInt(integerMin) + 1 <= numberHashes.size) None
    else numberHashes.filter
}

object JsonPlace {
  /**
   * The top-level place of a column. With a `castZone`, every place also collects the
   * [[CastStats]] of its string values (timestamps parsed in that zone).
   */
  def root(limits: JsonLimits, castZone: Option[String] = None): JsonPlace =
    new JsonPlace(0, limits, new KeyBudget(limits.maxKeys), castZone)

  /** How many more keys one column may track. */
  final class KeyBudget(private var left: Int) {
    def take(): Boolean = if (left > 0) { left -= 1; true } else false
  }
}

/**
 * Guards for JSON stats collection: `maxDepth` levels of nesting get keys and element stats
 * (the top level is depth 0), at most `maxKeys` object keys are tracked per column and part, and
 * a place whose strings, or whose numbers (all exact integers of a long), take at most
 * `maxMembers` distinct values gets their membership filter (0: none; the writer passes the
 * automatic filters' limit, `spark.sparkpersist.stats.autoIndexValues`, capped at the exact filters').
 */
final case class JsonLimits(maxDepth: Int, maxKeys: Int, maxMembers: Int = 0) {
  require(maxDepth >= 0 && maxKeys >= 0 && maxMembers >= 0, s"JSON limits must not be negative: $this")
}

object JsonLimits {
  /** Deep enough for real documents, small enough that the walk never nears a stack limit. */
  val Default: JsonLimits = JsonLimits(maxDepth = 32, maxKeys = 1000)
}
