package sparkpersist.shard

import sparkpersist.codec.Check
import sparkpersist.schema.{SchemaEvolution, ShardSchema}
import sparkpersist.stats.StatsEvolution

/**
 * What one state version changes. Version 0 of every shard is a [[CreateShard]]; every later
 * version is a [[StateChange]] applied to the version before it.
 */
sealed trait StateDiff

/** Version 0: the shard's identity and schema, with since = upper = 0 and no batches. */
final case class CreateShard(name: String, shardId: String, schema: ShardSchema) extends StateDiff {
  def state: ShardState =
    ShardState(name, shardId, ShardState.FormatVersion, schema, since = 0L, upper = 0L, seqNo = 0L,
      batches = Vector.empty)
}

/** A diff on top of an existing state. `applyTo` refuses (IllegalArgumentException) an invalid change. */
sealed trait StateChange extends StateDiff {
  def applyTo(state: ShardState): ShardState

  /** Whether the version this change writes is rolled up at once, not only every rollupEvery-th. */
  def rollsUp: Boolean = false
}

/** Appends one batch, moving upper from `batch.lower` to `batch.upper`. */
final case class AppendBatch(batch: BatchMeta) extends StateChange {
  def applyTo(state: ShardState): ShardState = {
    Check.arg(batch.lower == state.upper,
      s"Batch '${batch.id}' starts at lower ${batch.lower}, but shard '${state.name}' is at upper " +
        s"${state.upper}: a batch must start exactly at the shard's upper.")
    Check.arg(batch.upper > batch.lower,
      s"Batch '${batch.id}' has upper ${batch.upper} <= lower ${batch.lower}: a batch must cover a " +
        "non-empty time range [lower, upper).")
    Check.arg(!state.batches.exists(_.id == batch.id),
      s"Shard '${state.name}' already holds a batch with id '${batch.id}': batch ids must be unique.")
    state.copy(upper = batch.upper, seqNo = state.seqNo + 1, batches = state.batches :+ batch)
  }
}

/** Moves `since` forward: history before it may be compacted and is no longer readable. */
final case class DowngradeSince(since: Long) extends StateChange {
  def applyTo(state: ShardState): ShardState = {
    Check.arg(since >= state.since,
      s"Cannot move since of shard '${state.name}' backward from ${state.since} to $since: " +
        "history before since may already be compacted.")
    Check.arg(since <= state.upper,
      s"Cannot move since of shard '${state.name}' to $since, past its upper ${state.upper}: " +
        "since must stay <= upper.")
    state.copy(since = since, seqNo = state.seqNo + 1)
  }
}

/**
 * One compaction output: `batch` holds exactly the updates of the adjacent batches `replaced`
 * (in order), with times below since advanced and equal updates consolidated, over the same
 * `[lower, upper)` as the batches it replaces. `writtenUnder` (not stored) is the schema its parts
 * were written under, when known: after a schema change ([[AlterSchema]]) the replacement no
 * longer applies, as if another compaction had replaced its batches first.
 */
final case class BatchReplacement(replaced: IndexedSeq[String], batch: BatchMeta,
    writtenUnder: Option[ShardSchema] = None) {
  Check.arg(replaced.nonEmpty, s"Compacted batch '${batch.id}' replaces no batch.")

  /**
   * Where the replaced batches start in `state`, if they are all still there, adjacent and in
   * order, and span exactly `[batch.lower, batch.upper)`, under the schema the batch was written
   * under; None once another compaction replaced any of them, or the schema changed.
   */
  def positionIn(state: ShardState): Option[Int] = {
    val start = state.batches.indexWhere(_.id == replaced.head)
    val fits = start >= 0 && writtenUnder.forall(_ == state.schema) && start + replaced.size <= state.batches.size &&
      replaced.indices.forall(i => state.batches(start + i).id == replaced(i)) &&
      state.batches(start).lower == batch.lower && state.batches(start + replaced.size - 1).upper == batch.upper
    if (fits) Some(start) else None
  }
}

/**
 * Replaces groups of adjacent batches by compacted ones (see [[BatchReplacement]]). Upper and
 * since stay, and so does every batch not replaced — in particular one appended while the
 * compaction ran — so the change is valid on any later state that still holds the replaced batches.
 */
final case class ReplaceBatches(replacements: Seq[BatchReplacement]) extends StateChange {
  /** A compaction shrinks the state: opening the shard should read the small state at once. */
  override def rollsUp: Boolean = true

  def applyTo(state: ShardState): ShardState = {
    Check.arg(replacements.nonEmpty, "A compaction must replace at least one group of batches.")
    val starts = replacements.map { r =>
      r.positionIn(state).getOrElse(throw new IllegalArgumentException(
        s"Compacted batch '${r.batch.id}' replaces batches ${r.replaced.mkString(", ")} of shard " +
          s"'${state.name}', which are no longer all there, adjacent and spanning [${r.batch.lower}, " +
          s"${r.batch.upper}): another compaction replaced them first."))
    }
    val byStart = starts.zip(replacements).sortBy(_._1)
    byStart.sliding(2).foreach {
      case Seq((s1, r1), (s2, _)) =>
        Check.arg(s1 + r1.replaced.size <= s2, s"Compacted batches of shard '${state.name}' overlap.")
      case _ =>
    }
    val kept = state.batches.iterator.map(_.id).toSet -- replacements.flatMap(_.replaced)
    replacements.foreach { r =>
      Check.arg(!kept(r.batch.id), s"Shard '${state.name}' already holds a batch with id '${r.batch.id}'.")
    }
    val replacedAt = byStart.toMap
    val batches = Vector.newBuilder[BatchMeta]
    var i = 0
    while (i < state.batches.size) {
      replacedAt.get(i) match {
        case Some(r) =>
          batches += r.batch
          i += r.replaced.size
        case None =>
          batches += state.batches(i)
          i += 1
      }
    }
    state.copy(seqNo = state.seqNo + 1, batches = batches.result())
  }
}

/**
 * Changes the shard's schema to `schema` ([[SchemaEvolution]]: columns keep their stable ids, new
 * ones get fresh ids). Parts stay as they are; their statistics follow the columns by id
 * ([[StatsEvolution]]), so the state stays exact: a part written before a column was added holds
 * only nulls for it. The version files of the shard record the schema history: each such change
 * holds the whole new schema. With `batch`, the batch (written under the new schema) is appended in
 * the same version: a write that merges its schema adds its columns and its rows at once.
 */
final case class AlterSchema(schema: ShardSchema, batch: Option[BatchMeta] = None) extends StateChange {
  /** Every part's stats change: opening the shard should read the new state at once. */
  override def rollsUp: Boolean = true

  def applyTo(state: ShardState): ShardState = {
    SchemaEvolution.requireSuccessor(state.schema, schema, state.name)
    val batches = state.batches.map { b =>
      b.copy(runs = b.runs.map(r => RunMeta(r.parts.map(p =>
        p.copy(stats = p.stats.map(StatsEvolution.conform(_, state.schema, schema)))))))
    }
    val altered = state.copy(schema = schema, batches = batches)
    batch.fold(altered.copy(seqNo = state.seqNo + 1))(AppendBatch(_).applyTo(altered))
  }
}
