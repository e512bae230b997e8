package sparkpersist.stream

import org.apache.spark.sql.catalyst.expressions.{AliasHelper, And, Expression, PredicateHelper, SubqueryExpression}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project, SubqueryAlias}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.streaming.StreamingRelationV2

import sparkpersist.catalog.PersistTable
import sparkpersist.plan.ScanRequest


/**
 * Hands the filter a streaming query applies to a persist stream to the stream's table, so its
 * micro-batches can skip parts ([[ShardMicroBatchStream]]).
 *
 * Spark builds a streaming scan once, from the analyzed plan, before the optimizer ever runs
 * (`MicroBatchExecution` does no operator pushdown), so this runs as a post-hoc resolution rule:
 * for each `Filter` it follows the filter's child down through projections (substituting their
 * aliases), subquery aliases and further filters (whose conditions it adds) to a streaming relation
 * of a [[PersistTable]], and sets the table's request to the deterministic conjuncts without
 * subqueries. `mz_now()` stays in the condition: the stream interprets it as a range.
 *
 * Only part selection uses the request; Spark still filters every row. A conjunct left out only
 * means fewer parts skipped. The rule visits the filters not yet analyzed bottom-up, and an outer
 * filter adds the conditions of the filters below it, so the outermost decides; each run
 * recomputes the request from the plan.
 */
object StreamFilters extends Rule[LogicalPlan] with PredicateHelper with AliasHelper {

  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!plan.isStreaming) plan
    else plan.resolveOperatorsUp {
      case f @ Filter(condition, child) =>
        pushInto(child, splitConjunctivePredicates(condition).filter(pushable)) match {
          case Some(pushed) if !(pushed eq child) => f.copy(child = pushed)
          case _ => f
        }
    }

  private def pushable(e: Expression): Boolean = e.deterministic && !SubqueryExpression.hasSubquery(e)

  /** `plan` with the persist streaming relation under it asked to read `conjuncts`, if there is one. */
  private def pushInto(plan: LogicalPlan, conjuncts: Seq[Expression]): Option[LogicalPlan] = plan match {
    case _ if conjuncts.isEmpty => None
    case p @ Project(projectList, child) if projectList.forall(_.deterministic) =>
      val aliases = getAliasMap(p)
      pushInto(child, conjuncts.map(replaceAlias(_, aliases))).map(c => p.copy(child = c))
    case s @ SubqueryAlias(_, child) => pushInto(child, conjuncts).map(c => s.copy(child = c))
    case f @ Filter(condition, child) =>
      pushInto(child, conjuncts ++ splitConjunctivePredicates(condition).filter(pushable)).map(c => f.copy(child = c))
    case PersistStreamingRelation(r, table) =>
      val request = ScanRequest(None, Some(conjuncts.reduce(And)))
      Some(if (table.request == request) r else r.copy(table = table.withRequest(request)))
    case _ => None
  }
}

/**
 * A streaming relation reading a [[PersistTable]], and that table. Matched by type and field, not
 * by `StreamingRelationV2`'s own extractor, whose arity changes between Spark lines (4.3 added a
 * field).
 */
object PersistStreamingRelation {
  def unapply(plan: LogicalPlan): Option[(StreamingRelationV2, PersistTable)] = plan match {
    case r: StreamingRelationV2 => r.table match {
      case t: PersistTable => Some((r, t))
      case _ => None
    }
    case _ => None
  }
}
