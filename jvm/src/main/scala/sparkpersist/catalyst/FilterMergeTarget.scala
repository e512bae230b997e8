package sparkpersist.catalyst

import org.apache.spark.sql.catalyst.expressions.{Alias, EqualTo, Expression, InSubquery, ListQuery, PredicateHelper}
import org.apache.spark.sql.catalyst.plans.{Inner, RightOuter}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, Join, LogicalPlan, MergeRows, Project}
import org.apache.spark.sql.catalyst.rules.Rule

/**
 * A `MERGE INTO` a shard whose source is small reads only the target rows whose keys the source
 * holds into its join. Spark joins every target row with the source (an outer join when the
 * statement inserts, shuffling the whole shard, every column, to meet a source of a few rows);
 * this rule filters the target by the source's keys first — `target.k IN (SELECT k FROM source)`,
 * a semi-join Spark broadcasts — so only the rows that can match are shuffled.
 *
 * Sound where the join drops target rows without a match: an inner join (`WHEN MATCHED` only) or
 * a right outer join (`WHEN NOT MATCHED` too); not with `WHEN NOT MATCHED BY SOURCE` (a full
 * outer join, which keeps them). The keys are the condition's equalities between a target and a
 * source expression; the rest of the condition stays in the join. Applied when the source is
 * deterministic (it is read twice) and small enough for Spark to broadcast
 * (`spark.sql.autoBroadcastJoinThreshold`), once (the subquery's columns are named [[KeyName]]).
 */
object FilterMergeTarget extends Rule[LogicalPlan] with PredicateHelper {
  /** The name of the subquery's key columns: marks a target already filtered. */
  val KeyName = "__persist_merge_key"

  override def apply(plan: LogicalPlan): LogicalPlan = plan transformDown {
    case merge: MergeRows => merge.withNewChildren(Seq(filterJoin(merge.child)))
  }

  /** The merge's join (under the projections of the rewrite) with its target filtered, where it applies. */
  private def filterJoin(plan: LogicalPlan): LogicalPlan = plan match {
    case project: Project => project.withNewChildren(Seq(filterJoin(project.child)))
    case join @ Join(target, source, Inner | RightOuter, Some(condition), _)
        if isShardTarget(target) && !filtered(target) && source.deterministic && small(source) =>
      val keys = splitConjunctivePredicates(condition).collect {
        case EqualTo(t, s) if within(t, target) && within(s, source) => (t, s)
        case EqualTo(s, t) if within(t, target) && within(s, source) => (t, s)
      }
      if (keys.isEmpty) join
      else {
        val sourceKeys = Project(keys.map { case (_, s) => Alias(s, KeyName)() }, source)
        join.copy(left = Filter(InSubquery(keys.map(_._1), ListQuery(sourceKeys, numCols = keys.size)), target))
      }
    case other => other
  }

  /** Whether `expression` reads only columns of `side`, and some. */
  private def within(expression: Expression, side: LogicalPlan): Boolean =
    expression.references.nonEmpty && expression.references.subsetOf(side.outputSet) && expression.deterministic

  private def isShardTarget(target: LogicalPlan): Boolean = target.exists {
    case OperationRelation(_, _) => true
    case _ => false
  }

  private def filtered(target: LogicalPlan): Boolean = target.exists {
    case Filter(condition, _) => condition.exists {
      case InSubquery(_, query) => query.plan.output.exists(_.name == KeyName)
      case _ => false
    }
    case _ => false
  }

  private def small(source: LogicalPlan): Boolean = {
    val threshold = conf.autoBroadcastJoinThreshold
    threshold > 0 && source.stats.sizeInBytes <= BigInt(threshold)
  }
}
