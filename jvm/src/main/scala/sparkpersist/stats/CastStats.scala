package sparkpersist.stats

/**
 * What the non-null values of a string column become under `CAST`, for a string column in which
 * at least one value parses as a number, a date or a timestamp. Each view counts the values that
 * Spark's own cast to that kind of type accepts, and bounds what they become (bounds are absent
 * exactly when the count is 0); a value a view does not count fails that cast (NULL in legacy mode
 * and for `try_cast`, an error under ANSI).
 *
 * @param zone      the session time zone the timestamps were parsed in: a string without an
 *                  offset names a different instant in another zone
 * @param exact     `CAST(s AS BIGINT)` under ANSI (and `try_cast`): digits only, no fraction;
 *                  `Long` bounds
 * @param truncated `CAST(s AS BIGINT)` in legacy mode, which truncates a fraction (`"1.9"` is 1);
 *                  `Long` bounds
 * @param decimal   `Decimal.fromString`, what a cast to any DECIMAL parses before rounding to
 *                  the target's scale: exact `java.math.BigDecimal` bounds
 * @param double    `CAST(s AS DOUBLE)` (`"1e3"`, `"Infinity"`, `"NaN"` included): `Double`
 *                  bounds, NaN the largest as Spark orders doubles
 * @param date      `CAST(s AS DATE)`: `Int` bounds (days)
 * @param timestamp `CAST(s AS TIMESTAMP)` in `zone`: `Long` bounds (microseconds)
 * @param unparsed  values that none of these views accepts (TIMESTAMP_NTZ aside)
 * @param timestampNtz `CAST(s AS TIMESTAMP_NTZ)`: `Long` bounds (local microseconds, whatever the
 *                  zone; an offset in the text is ignored, as the cast ignores it). None: not
 *                  recorded (stats written before it), which readers take as "anything"; unlike
 *                  the other views, a recorded view that accepts no value is kept (count 0).
 */
final case class CastStats(
    zone: String,
    exact: CastRange,
    truncated: CastRange,
    decimal: CastRange,
    double: CastRange,
    date: CastRange,
    timestamp: CastRange,
    unparsed: Long,
    timestampNtz: Option[CastRange] = None) {

  def views: Seq[(String, CastRange)] = Seq("exact" -> exact, "truncated" -> truncated,
    "decimal" -> decimal, "double" -> double, "date" -> date, "timestamp" -> timestamp)
}

/**
 * `count` values that one cast accepts, and the bounds (inclusive) of their results as Catalyst
 * internal values (`java.math.BigDecimal` for decimals); both absent when `count` is 0.
 */
final case class CastRange(count: Long, lower: Option[Any], upper: Option[Any]) {
  require(count >= 0, s"a count is not negative, got $count")

  override def equals(o: Any): Boolean = o match {
    case r: CastRange => count == r.count && StatValues.same(lower, r.lower) && StatValues.same(upper, r.upper)
    case _ => false
  }
  override def hashCode(): Int = count.hashCode()
}

object CastRange {
  val none: CastRange = CastRange(0, None, None)
}
