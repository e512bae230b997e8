package sparkpersist.catalyst

import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.sparkpersist.RowLevelOperationTables
import org.apache.spark.sql.types.TimestampType

import sparkpersist.catalog.PersistTable
import sparkpersist.dml.PersistRowLevelOperation
import sparkpersist.interpret.MzNow
import sparkpersist.plan.ScanRequest
import sparkpersist.stream.ShardStreamRead

/**
 * The optimizer rule behind part pruning. It runs in Spark's operator-optimization batch, after
 * filters were pushed down and constants folded and before `V2ScanRelationPushDown` turns
 * relations into scans, so it sees `Filter(condition, relation of a persist table)`. For the
 * whole plan it
 *
 *  1. takes the as-of of each persist table that [[PinQueryTime]] pinned when the query was
 *     analyzed, or resolves it ([[QueryAsOf]]) for the tables of a plan it did not pin (the batch
 *     side of a streaming query),
 *  2. replaces a `mz_now()` left in the plan by the query's time (in a micro-batch of a streaming
 *     read of a shard, by the micro-batch's as-of: its end offset - 1), so pruning and row
 *     filtering agree, and
 *  3. hands each persist relation a [[ScanRequest]]: its shard's as-of, and the filter directly
 *     above it; the scan decides its parts from it when it is built (per the pushdown mode then).
 *     The target of a row-level operation reads the state the operation fixed, and takes the
 *     filter above it the same way ([[PersistRowLevelOperation.withCondition]]).
 *
 * The request is recomputed from the plan on every run (a condition is never left behind by a
 * filter that moved) and a relation whose request is unchanged is returned as is, so the rule
 * is idempotent and the batch reaches its fixed point. Other plans are returned untouched.
 *
 * A plan a later rule made for a relation ([[ScanRequest.planned]]: aggregates from statistics,
 * the whole-part `DELETE`) stays with it as its filter is rewritten: the optimizer only rewrites
 * the filter over a relation into an equivalent one (inferred `IS NOT NULL`s, say) or conjoins a
 * predicate pushed from above to it, so the plan's decisions stay sound for it (a part ruled out
 * by a condition is ruled out by any stronger one), the parts it answered from statistics stay
 * answered, and no part is decided twice.
 * Subqueries are optimized on their own and get the rule there.
 */
object PrunePersistParts extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    val tables = plan.collect { case PersistRelation(_, t) => t }
    val hasMzNow = plan.exists(_.expressions.exists(_.exists(_.isInstanceOf[MzNow])))
    if (tables.isEmpty && !hasMzNow && !plan.exists(OperationRelation.unapply(_).isDefined)) return plan

    val asOf = QueryAsOf.resolve(conf, tables.filterNot(_.request.pinned))
    // A micro-batch of a streaming read of shards reads as of its end offset - 1; mz_now() is that
    // time (the latest, over several streams, so it lies in every stream's pruning range). Else the
    // time chosen for the whole query when it was analyzed, where a relation here was pinned then.
    val pinnedNow = tables.find(_.request.pinned).map(_.request.now)
    val now = ShardStreamRead.asOfs(plan).maxOption.orElse(pinnedNow.getOrElse(asOf.now))
    val withNow =
      if (!hasMzNow) plan
      else plan.transformAllExpressions {
        case MzNow() => Literal(QueryAsOf.mzNowMicros(now), TimestampType)
      }
    request(withNow, asOf)
  }

  private def request(plan: LogicalPlan, asOf: QueryAsOf): LogicalPlan = plan match {
    case f @ Filter(condition, PersistRelation(r, t)) =>
      val child = withRequest(r, t, Some(condition), asOf)
      if (child eq r) f else f.copy(child = child)
    case PersistRelation(r, t) => withRequest(r, t, None, asOf)
    case f @ Filter(condition, OperationRelation(r, op)) =>
      val child = withCondition(r, op, Some(condition))
      if (child eq r) f else f.copy(child = child)
    case OperationRelation(r, op) => withCondition(r, op, None)
    case other => other.mapChildren(request(_, asOf))
  }

  /** The target of a row-level operation, its scan deciding parts by `condition`. */
  private def withCondition(r: DataSourceV2Relation, op: PersistRowLevelOperation,
      condition: Option[Expression]): DataSourceV2Relation =
    if (op.condition == condition) r
    else r.copy(table = RowLevelOperationTables.withOperation(r.table, op.withCondition(condition)))

  /**
   * `r` asking for `condition`, at the time [[PinQueryTime]] pinned (or of the state a statement
   * fixed, [[ScanRequest.latestOf]]), else the one resolved here.
   */
  private def withRequest(r: DataSourceV2Relation, t: PersistTable, condition: Option[Expression],
      asOf: QueryAsOf): DataSourceV2Relation = {
    val req =
      if (t.request.pinned || t.request.state.isDefined) t.request.copy(condition = condition)
      else ScanRequest(asOf.of(t), condition, planned = t.request.planned)
    if (t.request == req) r else r.copy(table = t.withRequest(req))
  }
}

/** The relation a row-level operation on a persist table reads its target rows from. */
private[catalyst] object OperationRelation {
  def unapply(plan: LogicalPlan): Option[(DataSourceV2Relation, PersistRowLevelOperation)] = plan match {
    case r: DataSourceV2Relation => RowLevelOperationTables.operationOf(r.table).collect {
      case op: PersistRowLevelOperation => (r, op)
    }
    case _ => None
  }
}

/** A relation of a persist table. */
private[catalyst] object PersistRelation {
  def unapply(plan: LogicalPlan): Option[(DataSourceV2Relation, PersistTable)] = plan match {
    case r: DataSourceV2Relation => r.table match {
      case t: PersistTable => Some((r, t))
      case _ => None
    }
    case _ => None
  }
}
