package sparkpersist.interpret

import java.math.{BigDecimal => JBigDecimal}

import sparkpersist.stats.{JsonNumberStats, JsonStats}

/**
 * What `parse_json` makes of documents whose JSON text stats are known (and which it accepts,
 * see [[sparkpersist.stats.VariantParse]]), as Spark 4.1's `VariantBuilder` builds them: JSON
 * nulls, booleans, strings, objects and arrays carry over kind for kind; an integer literal
 * becomes a long if it fits, else a decimal if it has at most 38 digits, else its double; a
 * literal with a fraction becomes an exact decimal (at most 38 digits and 38 decimals), else its
 * double, and one with an exponent its double.
 *
 * The text stats bound integer literals exactly and other literals between the neighbours of
 * their double, which brackets both the exact value and the double. So only integers of more
 * than 38 digits can leave them, rounded to a double: rounding is monotone, so a bound at or
 * beyond 1e38 in magnitude is widened to the neighbouring double of its own double (unbounded
 * past the largest double). Text `integral` (every number an integer literal) implies the
 * VARIANT meaning (no fractional part), so it carries over.
 */
private[interpret] object ParsedJsonStats {
  private val ExactLimit = JBigDecimal.TEN.pow(38)

  def of(js: JsonStats): JsonStats = js.copy(
    numbers = numbers(js.numbers),
    objects = js.objects.copy(keys = js.objects.keys.map { case (k, s) => k -> of(s) }),
    arrays = js.arrays.copy(elements = js.arrays.elements.map(of)))

  private def numbers(n: JsonNumberStats): JsonNumberStats =
    if (n.count == 0) n
    else n.copy(lower = n.lower.flatMap(widen(_, up = false)), upper = n.upper.flatMap(widen(_, up = true)))

  /** `bound` widened past the neighbouring double of its double; None past the largest double. */
  private def widen(bound: JBigDecimal, up: Boolean): Option[JBigDecimal] =
    if (bound.abs.compareTo(ExactLimit) < 0) Some(bound)
    else {
      val d = bound.doubleValue()
      val next = if (up) Math.nextUp(d) else Math.nextDown(d)
      if (next.isInfinite) None
      else {
        val n = new JBigDecimal(next)
        Some(if (up) bound.max(n) else bound.min(n))
      }
    }
}
