package sparkpersist.dml

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.functions.{col, lit}
import org.apache.spark.sql.sparkpersist.DataFrames

import sparkpersist.schema.ReservedColumns
import sparkpersist.isolation.{StatementReads, StatementRebase}
import sparkpersist.shard.{BatchMeta, CommitInfo, ShardHandle, ShardState}
import sparkpersist.write.{BatchCommit, ShardWriter, WriteInput, WriteOptions}

/**
 * An overwrite of a shard (`INSERT OVERWRITE`, `TRUNCATE TABLE`, `DELETE FROM` without a
 * condition, DataFrameWriterV2 `overwrite(condition)`, `overwritePartitions()` and `replace()`,
 * `CREATE OR REPLACE TABLE … AS SELECT` of the same columns), as one batch at one new time: every
 * row of the snapshot of `state` on which `condition` holds, retracted (diff -1, each copy), and
 * every row of `query`, inserted (diff +1), committed after `state` (and after what others committed
 * since, unless that retracted rows of the shard: [[StatementRebase]]).
 * Nothing is deleted: the shard reads as before the overwrite as of any earlier time, until
 * compaction drops what was retracted.
 *
 * @param target    the shard's snapshot as of `state`'s latest complete time (a relation reading it)
 * @param condition over `target`'s output: which rows the overwrite replaces
 * @param query     the new rows, in the shard's column order (Spark aligned them already); `None`
 *                  for an overwrite that only retracts (`TRUNCATE`)
 * @param options   the statement's write options ([[sparkpersist.write.DataSourceWriteOptions]])
 */
final case class OverwriteShard(statement: String, shard: ShardHandle, state: ShardState, target: LogicalPlan,
    condition: Expression, query: Option[LogicalPlan], options: WriteOptions = WriteOptions()) extends LeafRunnableCommand {

  override def output: Seq[Attribute] = Nil

  override def innerChildren: Seq[LogicalPlan] = target +: query.toSeq

  override def run(spark: SparkSession): Seq[Row] = {
    commit(spark)
    Nil
  }

  /** Writes and commits the batch; returns it (empty when nothing was retracted or inserted). */
  def commit(spark: SparkSession): BatchMeta = {
    val names = state.schema.columns.map(_.name)
    val time = lit(BatchCommit.commitTime(state.upper)).as(ReservedColumns.Time)
    def updates(plan: LogicalPlan, diff: Long) = DataFrames.ofRows(spark, plan).toDF(names: _*)
      .select(names.map(n => col(WriteInput.quote(n))) :+ time :+ lit(diff).as(ReservedColumns.Diff): _*)
    val retracted = updates(Filter(condition, target), -1L)
    val all = query.fold(retracted)(q => retracted.unionAll(updates(q, 1L)))
    ShardWriter.write(all, shard, options.copy(timeCol = Some(ReservedColumns.Time), diffCol = Some(ReservedColumns.Diff)),
      state, rebase = Some(StatementRebase.of(spark, shard, statement, state, StatementReads.everything)),
      info = Some(CommitInfo.inSession(spark.sessionState.conf, statement, Some(state),
        parameters = Map("predicate" -> condition.sql))))
  }

  override def simpleString(maxFields: Int): String =
    s"OverwriteShard $statement of '${shard.name}' at upper ${state.upper} where $condition"
}
