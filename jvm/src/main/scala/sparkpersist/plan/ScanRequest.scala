package sparkpersist.plan

import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * What the query asks of one persist scan, handed over through the table: the as-of of its shard
 * and the filter directly above the scan ([[sparkpersist.catalyst.PrunePersistParts]]), whose part
 * decision the scan makes when it is built. `None` fields fall back to the scan's own as-of
 * ([[AsOf.resolve]]) and to reading every part. A `pinned` request's as-of, and the query's
 * `mz_now()` time `now` beside it, were chosen when the query was analyzed, over the whole query,
 * its subqueries included ([[sparkpersist.catalyst.PinQueryTime]]).
 */
final case class ScanRequest(asOf: Option[Long], condition: Option[Expression], pinned: Boolean = false,
    now: Option[Long] = None,
    /**
     * The plan a rule already made for this request ([[ScanPlan]]): aggregates from statistics,
     * which answered some of its parts, or a whole-part `DELETE` that fell back to reading rows.
     * The scan reads by it (its state, as-of and decisions) instead of planning again, so a
     * compaction committed meanwhile cannot hand it the same rows under other parts.
     */
    planned: Option[ScanPlan] = None,
    /**
     * The state the scan reads, when the statement fixed it (a row-level operation reads the state
     * it commits against); else the shard's state when the scan is built.
     */
    state: Option[sparkpersist.shard.ShardState] = None)

object ScanRequest {
  val Unset: ScanRequest = ScanRequest(None, None)

  /**
   * A read of `state` as of its latest complete time, whatever as-of the session configured: what
   * a statement that writes reads (the rows it retracts must be the latest).
   */
  def latestOf(state: sparkpersist.shard.ShardState, condition: Option[Expression] = None): ScanRequest =
    ScanRequest(if (state.upper > 0) Some(state.upper - 1) else None, condition, state = Some(state))
}
