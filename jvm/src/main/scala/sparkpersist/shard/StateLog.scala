package sparkpersist.shard

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

  /** Moves `since` forward (never backward, never past upper). */
  def downgradeSince(newSince: Long): ShardState
}

/** An append named an upper that is no longer the shard's upper. Nothing was written. */
final class UpperMismatch(val shard: String, val expected: Long, val actual: Long)
  extends IllegalStateException(
    s"Shard '$shard' upper moved: the append expected upper $expected but the shard is at $actual " +
      "(another writer committed first). Nothing was written; retry with times >= the new upper.")

/** Two writers raced for the same state version; the loser retries from the new state. */
final class SeqNoConflict(val shard: String, val seqNo: Long)
  extends IllegalStateException(s"Shard '$shard': state version $seqNo was written concurrently")
