package sparkpersist.dml

import java.util.UUID

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.execution.command.LeafRunnableCommand

import sparkpersist.plan.{PartPruning, PushdownMode}
import sparkpersist.interpret.PartFilter
import sparkpersist.shard.{BatchMeta, PartMeta, RunMeta, ShardHandle, ShardState}
import sparkpersist.write.{BatchCommit, CommitHook}

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
final case class DeleteWholeParts(shard: ShardHandle, state: ShardState, condition: Expression, parts: Seq[PartMeta])
  extends LeafRunnableCommand {

  override def output: Seq[Attribute] = Nil

  override def run(spark: SparkSession): Seq[Row] = {
    commit()
    Nil
  }

  /** Commits the batch of negations, against `state`'s upper. */
  def commit(): BatchMeta = {
    val time = BatchCommit.commitTime(state.upper)
    val batch = BatchMeta(UUID.randomUUID().toString, state.upper, time + 1,
      IndexedSeq(RunMeta(parts.map(_.negation(time)).toIndexedSeq)), System.currentTimeMillis())
    ConcurrentShardUpdate.onConflict(shard.name, "DELETE")(shard.log.compareAndAppend(state.upper, batch, state.schema))
    CommitHook.afterCommit(shard, batch)
    batch
  }

  override def simpleString(maxFields: Int): String =
    s"DeleteWholeParts '${shard.name}': ${parts.size} parts retracted whole where $condition"
}

object DeleteWholeParts {
  /**
   * The whole-part `DELETE` of `condition` on the snapshot of `state` (read as of its latest
   * time), when every part is decided as above and some part is deleted; else `None` (the
   * statement reads rows). Decided with pushdown `on` only: other modes read every part.
   */
  def plan(shard: ShardHandle, state: ShardState, condition: Expression, mode: PushdownMode): Option[DeleteWholeParts] =
    if (mode != PushdownMode.On || state.upper <= 0) None
    else {
      val parts = state.parts.toIndexedSeq
      val decision = PartPruning.select(condition, state.schema, state.upper - 1, mode).decisionAmong(parts)
      val decisions = parts.map(p => p -> decision(p))
      val deleted = decisions.collect { case (p, PartFilter.ProvenTrue) => p }
      val allDecided = decisions.forall { case (_, d) => d == PartFilter.RuledOut || d == PartFilter.ProvenTrue }
      if (allDecided && deleted.nonEmpty && deleted.forall(p => !p.hasRetractions)) {
        Some(DeleteWholeParts(shard, state, condition, deleted))
      } else None
    }
}
