package sparkpersist.aggregate

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeReference, Coalesce, Expression, Literal, NamedExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, Complete, Count, Max, Min, Sum}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Filter, LocalRelation, LogicalPlan, Project, Union}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.types.LongType

import sparkpersist.PersistConf
import sparkpersist.catalog.PersistTable
import sparkpersist.interpret.PartFilter
import sparkpersist.plan.{AnsweredParts, PartPruning, PushdownMode, TableView}
import sparkpersist.shard.ShardState

/**
 * Answers `count(*)`, `count(column)`, `min(column)` and `max(column)` over a persist shard's
 * snapshot partly from statistics: `Aggregate(Filter(condition, shard))` (or without the filter)
 * (a projection of columns may stand between them) becomes the merge of a partial aggregate over the parts that must be read and one partial row per
 * part the statistics answer ([[StatsAggregates]]):
 * {{{
 *   Aggregate(merge)            -- counts summed (0 when nothing), min of mins, max of maxes
 *     Union
 *       Aggregate(partial)      -- over the shard without the answered parts
 *         Filter(condition, shard)
 *       LocalRelation           -- one partial row per answered part
 * }}}
 * A part is answered only when every row of it counts, so its statistics give the aggregate
 * exactly: the filter is proven true on it ([[PartFilter.decide]]; no filter: every part), every
 * update of it is an insert visible at the read's as-of, and no visible part of the shard holds a
 * retraction (a retraction could cancel any row). Its grouping columns must be constant in it and
 * its statistics exact for the columns the aggregates read (not trimmed; `min`/`max` only of
 * integers, dates and timestamps: [[StatsAggregate.exactBounds]]). Anything else in the
 * aggregate (DISTINCT, FILTER, other functions, grouping by an expression) leaves the plan as it
 * is. Runs after [[sparkpersist.catalyst.PrunePersistParts]] handed the shard its request, in
 * pushdown mode `on` with `spark.sparkpersist.read.statsAggregates`; the answered parts are
 * recorded in the request, so it rewrites a plan once.
 */
object AnswerAggregatesFromStats extends Rule[LogicalPlan] {
  import StatsAggregate._

  override def apply(plan: LogicalPlan): LogicalPlan =
    if (PushdownMode.of(conf) != PushdownMode.On || !PersistConf.StatsAggregates.get(conf)) plan
    else plan.transformDown { case agg: Aggregate => rewrite(agg).getOrElse(agg) }

  private def rewrite(agg: Aggregate): Option[LogicalPlan] = for {
    (condition, relation, table) <- shardBelow(agg.child)
    asOf <- table.request.asOf
    groups <- allDefined(agg.groupingExpressions.map {
      case a: Attribute if relation.outputSet.contains(a) && exactConstant(a.dataType) => Some(a)
      case _ => None
    })
    aggregates = agg.aggregateExpressions.flatMap(_.collect { case ae: AggregateExpression => ae })
      .foldLeft(Vector.empty[AggregateExpression])((seen, ae) => if (seen.exists(_.semanticEquals(ae))) seen else seen :+ ae)
    answers <- allDefined(aggregates.map(statsAggregate(_, relation, table)))
    if aggregates.nonEmpty
    state = table.shard.state
    answered = answeredParts(state, table, asOf, condition, groups, answers)
    if answered.nonEmpty
  } yield merge(agg, relation, table, groups, aggregates, AnsweredParts(state, answered.keySet), answered.values.toSeq)

  /** Every value, if each is defined. */
  private def allDefined[A](options: Seq[Option[A]]): Option[Seq[A]] =
    if (options.forall(_.isDefined)) Some(options.map(_.get)) else None

  /**
   * The persist snapshot relation the aggregate reads, with the filter above it, as the request
   * says; a projection of columns may stand above them (column pruning puts one there).
   */
  private def shardBelow(child: LogicalPlan): Option[(Option[Expression], DataSourceV2Relation, PersistTable)] = {
    val unprojected = child match {
      case Project(columns, below) if columns.forall(_.isInstanceOf[Attribute]) => below
      case other => other
    }
    val (condition, below) = unprojected match {
      case Filter(c, r) => (Some(c), r)
      case r => (None, r)
    }
    below match {
      case r: DataSourceV2Relation => r.table match {
        case t: PersistTable if t.view == TableView.Snapshot && t.request.answered.isEmpty && t.request.condition == condition =>
          Some((condition, r, t))
        case _ => None
      }
      case _ => None
    }
  }

  /** What the statistics answer for `ae`, if it is one of the aggregates they know. */
  private def statsAggregate(ae: AggregateExpression, relation: DataSourceV2Relation,
      table: PersistTable): Option[StatsAggregate] = {
    def column(e: Expression, exact: org.apache.spark.sql.types.DataType => Boolean): Option[Int] = e match {
      case a: Attribute if relation.outputSet.contains(a) && exact(a.dataType) => table.shardSchema.column(a.name).map(_.id)
      case _ => None
    }
    if (ae.mode != Complete || ae.isDistinct || ae.filter.isDefined) None
    else ae.aggregateFunction match {
      case Count(Seq(l: Literal)) if l.value != null => Some(CountRows)
      case Count(Seq(e)) => column(e, _ => true).map(CountValues)
      case Min(e) => column(e, exactBounds).map(MinOf)
      case Max(e) => column(e, exactBounds).map(MaxOf)
      case _ => None
    }
  }

  /** The partial rows of the parts whose statistics answer the aggregates, by part key. */
  private def answeredParts(state: ShardState, table: PersistTable, asOf: Long, condition: Option[Expression],
      groups: Seq[Attribute], answers: Seq[StatsAggregate]): Map[String, InternalRow] = {
    val visible = state.parts.filter(_.minTime <= asOf).toIndexedSeq
    if (visible.exists(_.hasRetractions)) return Map.empty
    val schema = table.shardSchema
    val decision = condition.map(c => PartPruning.select(c, state.schema, asOf, PushdownMode.On).decisionAmong(visible))
    val types = schema.columns.map(c => c.id -> c.dataType).toMap
    val groupColumns = groups.map(a => (schema.column(a.name).get.id, a.dataType))
    visible.iterator.filter(p => p.maxTime <= asOf && decision.forall(_(p) == PartFilter.ProvenTrue))
      .flatMap(p => p.stats.flatMap(StatsAggregates.partial(_, groupColumns, answers, types)).map(p.key -> _))
      .toMap
  }

  private def merge(agg: Aggregate, relation: DataSourceV2Relation, table: PersistTable,
      groups: Seq[Attribute], aggregates: Seq[AggregateExpression], answered: AnsweredParts,
      rows: Seq[InternalRow]): LogicalPlan = {
    val rest = relation.copy(table = table.withRequest(table.request.copy(answered = Some(answered))))
    val partialGroups = groups.map(g => Alias(g, g.name)())
    val partialValues = aggregates.zipWithIndex.map { case (ae, i) => Alias(ae, s"partial_$i")() }
    val partial = Aggregate(groups, partialGroups ++ partialValues, agg.child.transformUp { case r if r eq relation => rest })
    val fromStats = LocalRelation(partial.output.map(a => AttributeReference(a.name, a.dataType, nullable = true)()),
      rows)
    val union = Union(partial, fromStats)
    val (groupOut, valueOut) = union.output.splitAt(groups.size)
    def merged(i: Int): Expression = aggregates(i).aggregateFunction match {
      case _: Count => Coalesce(Seq(Sum(valueOut(i)).toAggregateExpression(), Literal(0L, LongType)))
      case _: Min => Min(valueOut(i)).toAggregateExpression()
      case _ => Max(valueOut(i)).toAggregateExpression()
    }
    def rewritten(e: Expression): Expression = e.transformDown {
      case ae: AggregateExpression if aggregates.exists(_.semanticEquals(ae)) => merged(aggregates.indexWhere(_.semanticEquals(ae)))
      case a: Attribute if groups.exists(_.semanticEquals(a)) => groupOut(groups.indexWhere(_.semanticEquals(a)))
    }
    val results = agg.aggregateExpressions.map {
      case a: Attribute => Alias(rewritten(a), a.name)(exprId = a.exprId, qualifier = a.qualifier)
      case ne => rewritten(ne).asInstanceOf[NamedExpression]
    }
    Aggregate(groupOut, results, union)
  }
}
