package sparkpersist.roundtrip

/**
 * What round-trip checks did and found: shards (schemas) written, batches written to them, rows, top-level columns whose
 * values were compared, single values compared, stats checked (a column's or nested value's stats
 * in one part, or a part's schema and row count), filters run (each in every pushdown mode),
 * parts written and parts pruned, schemas refused as they must be, the features exercised
 * ([[Coverage]]), and the mismatches found: their number, and a report of them (at most 20 per
 * shard), under the seed and index of their shard so that it can be reproduced alone.
 */
final case class RoundTripOutcome(
    schemas: Long = 0,
    batches: Long = 0,
    rows: Long = 0,
    columns: Long = 0,
    values: Long = 0,
    stats: Long = 0,
    predicates: Long = 0,
    parts: Long = 0,
    partsPruned: Long = 0,
    refusals: Long = 0,
    features: Set[String] = Set.empty,
    mismatchCount: Long = 0,
    mismatches: Seq[String] = Nil) {

  def +(o: RoundTripOutcome): RoundTripOutcome = RoundTripOutcome(
    schemas + o.schemas, batches + o.batches, rows + o.rows, columns + o.columns, values + o.values, stats + o.stats,
    predicates + o.predicates, parts + o.parts, partsPruned + o.partsPruned, refusals + o.refusals,
    features ++ o.features, mismatchCount + o.mismatchCount, mismatches ++ o.mismatches)

  def summary: String =
    s"$schemas schemas, $batches batches, $rows rows, $columns columns, $values values compared, $stats stats checked, " +
      s"$predicates filters, $parts parts ($partsPruned pruned), $refusals refusals, $mismatchCount mismatches"
}
