package sparkpersist.stats

/**
 * The [[CastStats]] inside a column's stats: the column's own (a string column) and those of the
 * string values at each place of its JSON documents (a JSON text or VARIANT column, or one nested
 * in a struct, array or map). [[StatsBudget]] drops them first: they only serve casts of text.
 */
private[sparkpersist] object CastTrimming {

  /** Whether `c` holds cast stats anywhere. */
  def has(c: ColumnStats): Boolean = c.casts.isDefined || c.nested.exists(has)

  /** `c` without any cast stats (the same instance when it holds none). */
  def without(c: ColumnStats): ColumnStats =
    if (!has(c)) c else c.copy(casts = None, nested = c.nested.map(without))

  private def has(n: NestedStats): Boolean = n match {
    case s: StructStats => s.fields.values.exists(has)
    case a: ArrayStats => a.elements.exists(has)
    case m: MapStats => m.keys.exists(has) || m.values.exists(has)
    case j: JsonStats => has(j)
  }

  private def has(j: JsonStats): Boolean =
    j.casts.isDefined || j.objects.keys.values.exists(has) || j.arrays.elements.exists(has)

  private def without(n: NestedStats): NestedStats = n match {
    case s: StructStats => StructStats(s.fields.map { case (k, f) => k -> without(f) })
    case a: ArrayStats => a.copy(elements = a.elements.map(without))
    case m: MapStats => m.copy(keys = m.keys.map(without), values = m.values.map(without))
    case j: JsonStats => without(j)
  }

  private def without(j: JsonStats): JsonStats = j.copy(casts = None,
    objects = j.objects.copy(keys = j.objects.keys.map { case (k, v) => k -> without(v) }),
    arrays = j.arrays.copy(elements = j.arrays.elements.map(without)))
}
