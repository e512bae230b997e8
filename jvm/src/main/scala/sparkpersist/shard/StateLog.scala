package sparkpersist.shard

import sparkpersist.schema.ShardSchema

/**
 * The versioned state of one shard, advanced by compare-and-set. Each version is one
 * put-if-absent file; a full rollup is written periodically so `open` never replays the whole
 * history. Implementations must make a lost race visible as [[UpperMismatch]] or
 * [[SeqNoConflict]], never as a silently dropped batch.
 */
trait StateLog {
  /** The newest state of the shard. */
  def current(): ShardState

  /**
   * Appends `batch` if the shard's upper is still `expectedUpper` (== batch.lower), moving the
   * upper to `batch.upper`. Throws [[UpperMismatch]] if another writer moved it first.
   */
  def compareAndAppend(expectedUpper: Long, batch: BatchMeta): ShardState

  /**
   * [[compareAndAppend]] of a batch whose parts were written under `writtenUnder`: fails with
   * [[SchemaChanged]], writing nothing, if the shard's schema is no longer that one (the parts
   * would lack, or mistype, columns the new schema has). With `alteredFrom`, the batch also
   * changes the shard's schema from that one to `writtenUnder` (a write that merges its schema,
   * [[AlterSchema]] with the batch): both commit in one state version, or neither does.
   */
  def compareAndAppend(expectedUpper: Long, batch: BatchMeta, writtenUnder: ShardSchema,
      alteredFrom: Option[ShardSchema] = None): ShardState

  /**
   * Appends the batch `onto` picks for the newest state: `onto` sees the state the batch will
   * follow and returns the batch (its lower that state's upper), or fails, and nothing is written.
   * When another writer wins the race for the version, `onto` picks again for the newer state.
   * `writtenUnder` and `alteredFrom` are checked as by [[compareAndAppend]], before `onto` runs.
   */
  def appendOnto(writtenUnder: ShardSchema, alteredFrom: Option[ShardSchema])(onto: ShardState => BatchMeta): ShardState

  /**
   * Changes the shard's schema to `change(current schema)` by compare-and-set ([[AlterSchema]]),
   * deciding again on the newest state if another writer committed first. Returns the new state
   * (the current one, unchanged, when `change` returns the same schema).
   */
  def alterSchema(change: ShardSchema => ShardSchema): ShardState

  /** Moves `since` forward (never backward, never past upper). */
  def downgradeSince(newSince: Long): ShardState

  /**
   * Replaces groups of adjacent batches by compacted ones ([[BatchReplacement]]) in one state
   * version, by compare-and-set like an append: batches appended meanwhile stay. A replacement
   * whose batches are no longer all in the shard (another compaction replaced one) is left out.
   * Returns the new state and the replacements it holds; when none applies, nothing is written.
   */
  def replaceBatches(replacements: Seq[BatchReplacement]): (ShardState, Seq[BatchReplacement])

  /**
   * The record of every state version the log holds now ([[VersionRecord]]), newest first: versions
   * garbage collection deleted are not there (version 0, the create, always is). With `limit`, only
   * the newest `limit` versions are read.
   */
  def history(limit: Int = Int.MaxValue): IndexedSeq[VersionEntry]

  /** The state versions and rollups the log holds now (for garbage collection). */
  def listing(): StateListing

  /**
   * The states at versions `seqNo`, `seqNo + 1`, ... up to the newest, replayed from the newest
   * rollup at or below `seqNo`. Fails if the log no longer holds what that needs.
   */
  def statesFrom(seqNo: Long): Iterator[ShardState]

  /**
   * Deletes every version below `seqNo` but version 0 (which marks the shard as existing), and
   * every rollup below `seqNo`, which must itself be a rollup, so that every state from `seqNo`
   * on stays readable. Versions are deleted oldest first. Returns the names of the deleted files:
   * none when the rollup at `seqNo` cannot be read (the older files are what its state is rebuilt from).
   */
  def truncateBefore(seqNo: Long): Seq[String]
}

/** One state file: its version and the time it was last modified (its commit, epoch ms). */
final case class StateFile(seqNo: Long, modifiedMs: Long, name: String)

/** One state version of the shard's history: its number, its file's modification time, and its record. */
final case class VersionEntry(seqNo: Long, modifiedMs: Long, record: VersionRecord) {
  /** When the version was committed: as its record says, else its file's modification time. */
  def timestampMs: Long = record.timestampMs.getOrElse(modifiedMs)
}

/** The files of a state log: its versions and rollups, each oldest first. */
final case class StateListing(versions: IndexedSeq[StateFile], rollups: IndexedSeq[StateFile]) {
  def newest: Long = versions.lastOption.map(_.seqNo).getOrElse(0L)
}

/** An append named an upper that is no longer the shard's upper. Nothing was written. */
final class UpperMismatch(val shard: String, val expected: Long, val actual: Long)
  extends IllegalStateException(
    s"Shard '$shard' upper moved: the append expected upper $expected but the shard is at $actual " +
      "(another writer committed first). Nothing was written; retry with times >= the new upper.")

/** Two writers raced for the same state version; the loser retries from the new state. */
final class SeqNoConflict(val shard: String, val seqNo: Long)
  extends IllegalStateException(s"Shard '$shard': state version $seqNo was written concurrently")

/** A write's parts were written under a schema the shard no longer has. Nothing was written. */
final class SchemaChanged(val shard: String)
  extends IllegalStateException(
    s"Shard '$shard' changed its schema (ALTER TABLE) while this write ran, so its parts do not match " +
      "the new schema. Nothing was written; write again.")
