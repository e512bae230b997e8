package sparkpersist.aggregate

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeReference, Coalesce, Expression, If, IsNull, Literal, NamedExpression, SubqueryExpression, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, Complete, Count, Max, Min, Sum}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Filter, LocalRelation, LogicalPlan, Project, Union}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.types.LongType

import org.apache.spark.sql.classic.SparkSession

import sparkpersist.PersistConf
import sparkpersist.catalog.PersistTable
import sparkpersist.interpret.PartDecision
import sparkpersist.plan.{PushdownMode, ScanPlan, TableView}
import sparkpersist.scan.{ScanMetrics, ScanReport}

/**
 * Answers `count(*)`, `count(column)`, `min(column)` and `max(column)` over a persist shard's
 * snapshot partly from statistics: `Aggregate(Filter(condition, shard))` (or without the filter)
 * (a projection of columns may stand between them) becomes the merge of a partial aggregate over the parts that must be read and one partial row per
 * part the statistics answer ([[StatsAggregates]]), merged on the driver ([[PartialMerge]]) to one
 * row per group:
 * {{{
 *   Aggregate(merge)            -- counts summed (0 when nothing), min of mins, max of maxes
 *     Union
 *       Project(partial)        -- each row read as a partial row: counts 1 or 0, min = max = its value
 *         Filter(condition, shard without the answered parts)
 *       LocalRelation           -- the answered parts' partial rows, merged
 * }}}
 * When no part is left to read (each is answered or ruled out), the result itself is computed
 * here and planned as a [[StatsAnswer]]: no Spark job runs.
 * A part is answered only when its statistics give the aggregate exactly: the filter is proven
 * true on it (its [[ScanPlan]]'s decision; no filter: every part), every update of it is an
 * insert visible at the read's as-of, and no retraction can cancel a row of it unseen. With
 * retractions in the shard that means every retraction names its row by position
 * ([[sparkpersist.positional.PositionalSnapshot]]): a part the positions name none of is answered
 * as if nothing retracted; one they name rows of answers `count(*)` only (its rows less those
 * positions; a part left with none answers nothing); the parts holding the retractions are read.
 * Retractions by value (no positions) leave every part to be read. A part negated whole and its
 * negation are not in the plan at all (they count as nothing). Its grouping columns must be
 * constant in it and its statistics exact for the columns the aggregates read (not trimmed;
 * `min`/`max` only of integers, dates and timestamps: [[StatsAggregate.exactBounds]]). The
 * decisions are the plan's, made once: the scan of the rest reads by the same plan. Anything else in the
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
    plan = ScanPlan.of(SparkSession.active, table.shard, TableView.Snapshot, table.request)
    answered = answeredParts(plan, asOf, condition.isDefined, groups, answers)
    if answered.keys.nonEmpty
  } yield {
    val merged = new PartialMerge(groups.size, answers.zip(aggregates.map(_.dataType)))(answered.rows.iterator)
    val whole = if (answered.leftToRead) None else answerAll(agg, groups, aggregates, merged, answered.report(plan))
    whole.getOrElse(merge(agg, relation, table, groups, aggregates, plan.answering(answered.keys), merged))
  }

  /**
   * What the statistics of a shard's parts answer: the keys of the parts they answer, their partial
   * rows (none for a part with no row left), and whether any visible part is neither answered nor
   * ruled out (and must be read).
   */
  private final case class Answered(keys: Set[String], rows: Seq[InternalRow], leftToRead: Boolean) {
    /** The report of a query that reads no part. */
    def report(plan: ScanPlan): ScanReport = ScanReport(plan.shard.name, plan.asOf, PushdownMode.On,
      ScanMetrics(plan.state.partCount, 0, plan.state.parts.map(_.bytes).sum, 0,
        partsPruned = plan.decisions.ruledOut.cardinality, pruningNanos = plan.decisions.nanos,
        partsFromStats = keys.size), softViolations = None)
  }

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
        case t: PersistTable if t.view == TableView.Snapshot && t.request.planned.isEmpty && t.request.condition == condition =>
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

  /** The parts of `plan` whose statistics answer the aggregates, and whether any other must be read. */
  private def answeredParts(plan: ScanPlan, asOf: Long, filtered: Boolean, groups: Seq[Attribute],
      answers: Seq[StatsAggregate]): Answered = {
    val parts = plan.candidates
    val retracting = parts.exists(_.hasRetractions)
    val positional = if (retracting) plan.positional else None
    if (retracting && positional.isEmpty) return Answered(Set.empty, Nil, leftToRead = true)
    val schema = plan.state.schema
    val types = schema.columns.map(c => c.id -> c.dataType).toMap
    val groupColumns = groups.map(a => (schema.column(a.name).get.id, a.dataType))
    val countsOnly = answers.forall(_ == CountRows)
    val answered = parts.indices.iterator.filter { i =>
      val p = parts(i)
      p.maxTime <= asOf && !p.hasRetractions && (!filtered || plan.decision(i) == PartDecision.ProvenTrue)
    }.flatMap { i =>
      val p = parts(i)
      val dropped = positional.fold(0L)(_.droppedFrom(p).size.toLong)
      if (dropped > 0 && !countsOnly) None
      else p.stats.flatMap { stats =>
        if (dropped > 0 && dropped >= stats.rowCount) Some(p.key -> None) // no row of it is left
        else StatsAggregates.partial(stats, groupColumns, answers, types, dropped).map(row => p.key -> Some(row))
      }
    }.toMap
    val leftToRead = parts.indices.exists(i => !answered.contains(parts(i).key) && plan.decision(i) != PartDecision.RuledOut)
    Answered(answered.keySet, answered.valuesIterator.flatten.toSeq, leftToRead)
  }

  /**
   * The aggregate's result when nothing is left to read: its expressions evaluated over the merged
   * partial rows, as a [[StatsAnswer]]; None (the caller merges as usual) when an expression is
   * not deterministic, holds a subquery, or fails here (its error is then raised when the query runs).
   */
  private def answerAll(agg: Aggregate, groups: Seq[Attribute], aggregates: Seq[AggregateExpression],
      merged: Seq[InternalRow], report: ScanReport): Option[LogicalPlan] = {
    val groupIn = groups.map(g => AttributeReference(g.name, g.dataType, nullable = true)())
    val valueIn = aggregates.zipWithIndex.map { case (ae, i) => AttributeReference(s"partial_$i", ae.dataType, nullable = true)() }
    val results = resultsOver(agg, groups, aggregates, groupIn, valueIn)
    if (!results.forall(r => r.deterministic && !SubqueryExpression.hasSubquery(r))) None
    else scala.util.Try {
      val project = UnsafeProjection.create(results, groupIn ++ valueIn)
      merged.map(r => project(r).copy(): InternalRow)
    }.toOption.map(rows => StatsAnswer(results.map(_.toAttribute), rows, report))
  }

  /**
   * `agg`'s output expressions over merged inputs: each grouping column read from `groupIn`, each
   * aggregate replaced by `value(i)` of its position, names and expression ids kept.
   */
  private def resultsOver(agg: Aggregate, groups: Seq[Attribute], aggregates: Seq[AggregateExpression],
      groupIn: Seq[Attribute], value: Int => Expression): Seq[NamedExpression] = {
    def rewritten(e: Expression): Expression = e.transformDown {
      case ae: AggregateExpression if aggregates.exists(_.semanticEquals(ae)) => value(aggregates.indexWhere(_.semanticEquals(ae)))
      case a: Attribute if groups.exists(_.semanticEquals(a)) => groupIn(groups.indexWhere(_.semanticEquals(a)))
    }
    agg.aggregateExpressions.map {
      case a: Attribute => Alias(rewritten(a), a.name)(exprId = a.exprId, qualifier = a.qualifier)
      case ne => rewritten(ne).asInstanceOf[NamedExpression]
    }
  }

  private def merge(agg: Aggregate, relation: DataSourceV2Relation, table: PersistTable,
      groups: Seq[Attribute], aggregates: Seq[AggregateExpression], answered: ScanPlan,
      rows: Seq[InternalRow]): LogicalPlan = {
    val rest = relation.copy(table = table.withRequest(table.request.copy(planned = Some(answered))))
    val partialGroups = groups.map(g => Alias(g, g.name)())
    // Each row read is a partial row of its own (a count of 1 or 0, its value as min and max), so
    // one aggregation (one shuffle) merges them with the answered parts' rows.
    val rowValues = aggregates.zipWithIndex.map { case (ae, i) =>
      val value = ae.aggregateFunction match {
        case Count(Seq(_: Literal)) => Literal(1L)
        case Count(Seq(e)) => If(IsNull(e), Literal(0L), Literal(1L))
        case Min(e) => e
        case Max(e) => e
        case other => throw new IllegalStateException(s"not an aggregate statistics answer: $other")
      }
      Alias(value, s"partial_$i")()
    }
    val partial = Project(partialGroups ++ rowValues, agg.child.transformUp { case r if r eq relation => rest })
    val fromStats = LocalRelation(partial.output.map(a => AttributeReference(a.name, a.dataType, nullable = true)()),
      rows)
    val union = Union(partial, fromStats)
    val (groupOut, valueOut) = union.output.splitAt(groups.size)
    def merged(i: Int): Expression = aggregates(i).aggregateFunction match {
      case _: Count => Coalesce(Seq(Sum(valueOut(i)).toAggregateExpression(), Literal(0L, LongType)))
      case _: Min => Min(valueOut(i)).toAggregateExpression()
      case _ => Max(valueOut(i)).toAggregateExpression()
    }
    Aggregate(groupOut, resultsOver(agg, groups, aggregates, groupOut, merged), union)
  }
}
