package sparkpersist.shard

import sparkpersist.codec.Check
import sparkpersist.schema.ShardSchema

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
