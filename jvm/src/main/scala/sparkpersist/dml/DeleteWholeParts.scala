package sparkpersist.dml

import java.util.UUID

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.execution.command.LeafRunnableCommand

import sparkpersist.interpret.PartDecision
import sparkpersist.isolation.{StatementReads, StatementRebase}
import sparkpersist.plan.{PushdownMode, ScanPlan}
import sparkpersist.shard.{BatchMeta, CommitInfo, PartMeta, ShardHandle, ShardState}
import sparkpersist.write.BatchCommit

/**
 * A `DELETE` that needs no row: every part of the shard's snapshot is either ruled out by the
 * condition (no row of it passes, none raises) or proven true on it (every row passes, none
 * raises), and every part it is proven true on holds only inserts. Then the rows the statement
 * deletes are exactly the rows of those parts, and it commits one batch of their negations
 * ([[PartMeta.negation]]): each part retracted whole, at the commit time, by reference to its
 * file. No row is read and no file is written; earlier times read as before, and compaction
 * drops the rows and their negations together.
 *
 * Why it is exact: a row the condition holds on lies only in parts it is not ruled out on, so in
 * parts it is proven true on, which hold no retraction; so each such row's count in the
 * snapshot is its count in those parts, and negating them removes it and nothing else.
 */
final case class DeleteWholeParts(shard: ShardHandle, state: ShardState, condition: Expression, parts: Seq[PartMeta],
    reads: StatementReads) extends LeafRunnableCommand {

  override def output: Seq[Attribute] = Nil

  override def run(spark: SparkSession): Seq[Row] = {
    commit(spark)
    Nil
  }

  /**
   * Commits the batch of negations after `state` ([[BatchCommit.commitNegations]]), and after what
   * others committed since unless that conflicts with the parts it deletes ([[StatementRebase]]).
   */
  def commit(spark: SparkSession): BatchMeta = {
    val batch = new BatchCommit(shard, UUID.randomUUID().toString, state.upper, "the commit time", state.schema,
      rebase = Some(StatementRebase.of(spark, shard, "DELETE", state, reads)),
      info = Some(CommitInfo.inSession(spark.sessionState.conf, "DELETE", Some(state),
        parameters = Map("predicate" -> condition.sql))))
    batch.commitNegations(parts, BatchCommit.commitTime(state.upper))
  }

  override def simpleString(maxFields: Int): String =
    s"DeleteWholeParts '${shard.name}': ${parts.size} parts retracted whole where $condition"
}

object DeleteWholeParts {
  /**
   * The whole-part `DELETE` of `plan`'s condition (a plan of the snapshot of the state the
   * statement read, as of its latest time, `ScanRequest.latestOf`), when every part is decided
   * as above and some part is deleted; else `None` (the statement reads rows, by the same plan).
   * Decided with pushdown `on` only: other modes read every part.
   */
  def of(plan: ScanPlan): Option[DeleteWholeParts] =
    for {
      condition <- plan.selection.condition if plan.selection.mode == PushdownMode.On
      decisions = plan.candidates.indices.map(plan.decision)
      if decisions.forall(_ != PartDecision.Undecided)
      deleted = plan.candidates.indices.filter(i => decisions(i) == PartDecision.ProvenTrue).map(plan.candidates)
      if deleted.nonEmpty && deleted.forall(p => !p.hasRetractions)
    } yield {
      val reads = new StatementReads
      reads.record(plan)
      DeleteWholeParts(plan.shard, plan.state, condition, deleted, reads)
    }
}
