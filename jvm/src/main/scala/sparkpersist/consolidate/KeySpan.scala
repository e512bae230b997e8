package sparkpersist.consolidate

import sparkpersist.interpret.ValueOrdering
import sparkpersist.schema.ColumnDef
import sparkpersist.shard.PartMeta
import sparkpersist.util.Prefix

/**
 * What a part's statistics say about the values of one column: whether it may hold nulls
 * (`nulls`), whether it may hold non-null values (`values`), and bounds `lower <= v <= upper` of
 * every non-null value `v`, in Spark's order of the column's type ([[ValueOrdering]]: NaN above
 * every other number, -0.0 equal to 0.0, strings and binary bytewise). An absent bound is
 * unbounded on that side: a truncated string keeps a prefix as lower bound and a bumped prefix
 * (or nothing) as upper bound, so both stay sound.
 */
final case class KeySpan(nulls: Boolean, values: Boolean, lower: Option[Any], upper: Option[Any]) {

  /** Whether `value` (null included) lies in this span. */
  def holds(value: Any, ordering: Ordering[Any]): Boolean =
    if (value == null) nulls
    else values && KeySpan.atMost(lower, Some(value), ordering) && KeySpan.atMost(Some(value), upper, ordering)

  /** Whether a value of this span may equal a value of `other` (nulls meet nulls). */
  def meets(other: KeySpan, ordering: Ordering[Any]): Boolean =
    (nulls && other.nulls) || (values && other.values &&
      KeySpan.atMost(lower, other.upper, ordering) && KeySpan.atMost(other.lower, upper, ordering))
}

object KeySpan {
  /** A part without usable statistics for the column: it may hold anything. */
  val Anything: KeySpan = KeySpan(nulls = true, values = true, None, None)

  /**
   * The span of `column` in `part`, from its statistics. Missing statistics, counts that do not
   * add up and bounds that are not values of the column's type (corrupt statistics) give
   * [[Anything]]: conservative on doubt.
   */
  def of(part: PartMeta, column: ColumnDef): KeySpan =
    part.stats.flatMap(s => s.columns.get(column.id).map(s.rowCount -> _)) match {
      case Some((rows, c)) if c.nullCount >= 0 && c.nullCount <= rows &&
          (c.lower ++ c.upper).forall(ValueOrdering.isValueOf(_, column.dataType)) =>
        KeySpan(nulls = c.nullCount > 0, values = c.nullCount < rows, c.lower, c.upper)
      case _ => Anything
    }

  /** `a <= b`, an absent bound being unbounded (so the comparison may hold). */
  private[consolidate] def atMost(a: Option[Any], b: Option[Any], ordering: Ordering[Any]): Boolean =
    a.isEmpty || b.isEmpty || ordering.lteq(a.get, b.get)
}

/**
 * The union of some spans, to ask quickly whether a span meets any of them: whether any may hold
 * nulls, and their value intervals merged into disjoint intervals sorted by lower bound.
 */
final class KeySpanCover(spans: Seq[KeySpan], ordering: Ordering[Any]) {
  private val nulls = spans.exists(_.nulls)

  /** Disjoint intervals, in order; `None` bounds are unbounded. */
  private val intervals: IndexedSeq[(Option[Any], Option[Any])] = {
    val lowerFirst: Ordering[Option[Any]] = (a, b) =>
      if (a.isEmpty || b.isEmpty) java.lang.Boolean.compare(b.isEmpty, a.isEmpty) else ordering.compare(a.get, b.get)
    val sorted = spans.filter(_.values).map(s => (s.lower, s.upper)).sortBy(_._1)(lowerFirst)
    sorted.foldLeft(Vector.empty[(Option[Any], Option[Any])]) {
      case (acc :+ ((lo, hi)), (l, u)) if KeySpan.atMost(l, hi, ordering) =>
        acc :+ (lo -> (if (hi.isEmpty || u.isEmpty) None else Some(ordering.max(hi.get, u.get))))
      case (acc, next) => acc :+ next
    }
  }

  /** Whether `span` may share a value (or a null) with one of the spans. */
  def meets(span: KeySpan): Boolean =
    (nulls && span.nulls) || (span.values && {
      // The last interval starting at or below the span's upper bound is the only one that can
      // reach the span: those before it end below its start.
      val lo = Prefix.length(intervals.size)(i => KeySpan.atMost(intervals(i)._1, span.upper, ordering))
      lo > 0 && KeySpan.atMost(span.lower, intervals(lo - 1)._2, ordering)
    })
}
