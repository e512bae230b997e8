package sparkpersist.catalyst

import org.apache.spark.sql.catalyst.plans.logical.{AnalysisHelper, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule

import sparkpersist.plan.ScanRequest


/**
 * Chooses the times a batch query reads when it is analyzed, over the whole query, its subqueries
 * included, as Spark fixes `current_timestamp()` once per query: the as-of of every persist
 * relation and the query's `mz_now()` ([[QueryAsOf]]), pinned in each relation's [[ScanRequest]].
 * [[PrunePersistParts]] then uses them, in the query and in each subquery, which Spark optimizes
 * on its own (a choice made there would see one subquery at a time).
 *
 * Spark analyzes a subquery on its own first, then the query around it: the outermost run sees
 * every relation and pins them all anew, so its choice is the one that holds. A DataFrame analyzed
 * again (a new action on it builds a new plan around it) reads the times of that analysis.
 * Streaming plans are left to the micro-batches, whose `mz_now()` is the micro-batch's time.
 */
object PinQueryTime extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = if (plan.isStreaming) plan else {
    val relations = plan.collectWithSubqueries { case PersistRelation(_, t) => t }
    if (relations.isEmpty) plan
    else AnalysisHelper.allowInvokingTransformsInAnalyzer {
      val time = QueryAsOf.resolve(conf, relations)
      plan.transformUpWithSubqueries {
        case PersistRelation(r, t) if t.request.state.isEmpty => // a statement's own read of a state stays
          val pinned = ScanRequest(time.of(t), None, pinned = true, now = time.now)
          if (t.request == pinned) r else r.copy(table = t.withRequest(pinned))
      }
    }
  }
}
