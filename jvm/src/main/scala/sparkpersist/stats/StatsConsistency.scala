package sparkpersist.stats

/**
 * The counts of decoded stats checked against what they count, so that damaged stats can only
 * widen what readers assume: a null count outside `[0, values]` would let a reader take a column
 * for all-null or null-free, and an element or entry count that the array or map sizes rule out
 * would let it take arrays for empty, and a [[VariantParse]] count above the non-null values would
 * claim that `parse_json` accepts them all. Such a piece is dropped (a column loses its stats, a struct
 * field its own, an array or map its nested stats), which readers take as "anything".
 */
private[stats] object StatsConsistency {

  /** `stats` without the columns and nested pieces whose counts cannot be true. */
  def of(stats: PartStats): PartStats = stats.copy(columns = stats.columns.flatMap { case (id, c) =>
    column(c, stats.rowCount).map(id -> _)
  })

  /** The stats of `count` values, if their null count fits, with their nested pieces checked. */
  def column(c: ColumnStats, count: Long): Option[ColumnStats] =
    if (c.nullCount < 0 || c.nullCount > count) None
    else Some(c.copy(nested = c.nested.flatMap(nested(_, count, count - c.nullCount)),
      variantParse = c.variantParse.filter(v => v.parsed >= 0 && v.parsed <= count - c.nullCount)))

  /** `n` over `count` rows, `nonNull` of them not null; None if its counts contradict them. */
  private def nested(n: NestedStats, count: Long, nonNull: Long): Option[NestedStats] = n match {
    case StructStats(fields) => Some(StructStats(fields.flatMap { case (f, s) => column(s, count).map(f -> _) }))
    case a: ArrayStats if sizesFit(a.minSize, a.maxSize, a.elementCount, nonNull) =>
      Some(a.copy(elements = a.elements.flatMap(column(_, a.elementCount))))
    case m: MapStats if sizesFit(m.minSize, m.maxSize, m.entryCount, nonNull) =>
      Some(m.copy(keys = m.keys.flatMap(column(_, m.entryCount)), values = m.values.flatMap(column(_, m.entryCount))))
    case _: ArrayStats | _: MapStats => None
    case j: JsonStats => Some(j) // their readers check that the kinds' counts add up
  }

  /** Whether `nonNull` collections of `min` to `max` items can hold `items` items in all. */
  private def sizesFit(min: Int, max: Int, items: Long, nonNull: Long): Boolean =
    BigInt(min) * nonNull <= items && items <= BigInt(max) * nonNull
}
