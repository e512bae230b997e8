package sparkpersist.write

/**
 * How a DataFrame is written to a shard.
 *
 * @param timeCol        column holding each update's time: bigint epoch milliseconds, or a
 *                       timestamp (converted to epoch milliseconds, rounded down). Absent: every
 *                       row gets the commit time (append-only writes).
 * @param diffCol        column holding each update's diff (bigint; +1 insert, -1 retraction).
 *                       Absent: every row is an insert (+1).
 * @param maxRowsPerPart largest part; default `spark.sparkpersist.write.maxRowsPerPart`.
 * @param keepStats      columns whose part stats the stats budget trims last, as time-like
 *                       columns ([[sparkpersist.stats.StatsBudget]]); names of shard columns.
 * @param jsonColumns    string columns holding JSON text (see [[sparkpersist.schema.JsonColumns]]):
 *                       declared on the write that creates the shard; later writes may omit it,
 *                       or must name exactly the shard's JSON columns.
 * @param indexColumns   columns whose parts get membership filters for `=`, `IN` and `<=>`
 *                       lookups ([[sparkpersist.stats.MembershipFilter]]); their stats are
 *                       trimmed last, as `keepStats`.
 * @param mergeSchema    add the DataFrame's columns the shard lacks to the shard before writing,
 *                       and write the shard's columns the DataFrame lacks as nulls ([[SchemaMerge]]).
 */
final case class WriteOptions(
    timeCol: Option[String] = None,
    diffCol: Option[String] = None,
    maxRowsPerPart: Option[Long] = None,
    jsonColumns: Seq[String] = Nil,
    keepStats: Seq[String] = Nil,
    indexColumns: Seq[String] = Nil,
    mergeSchema: Boolean = false) {
  maxRowsPerPart.foreach(n => require(n >= 1, s"maxRowsPerPart must be at least 1, got $n"))

  /** An update write names its diffs; append-only writes only insert. */
  def isUpdate: Boolean = diffCol.isDefined
}
