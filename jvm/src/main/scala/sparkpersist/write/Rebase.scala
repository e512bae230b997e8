package sparkpersist.write

import sparkpersist.shard.{BatchMeta, ShardState}

/**
 * How a batch follows commits that landed after the state its writer read: the batch is written
 * for that state's upper (its lower), and the newest state may have moved on.
 */
trait Rebase {
  /**
   * `batch`, to follow `newest` (its lower `newest.upper`, its updates at a time no lower), or a
   * failure saying which commit in between conflicts with it: then nothing is written.
   */
  def onto(batch: BatchMeta, newest: ShardState): BatchMeta
}

object Rebase {
  /**
   * The rebase of a blind append: a batch of inserts stamped with its commit time, which read
   * nothing, so no commit can conflict with it. Committed after others, it moves to their upper.
   */
  val BlindAppend: Rebase = (batch: BatchMeta, newest: ShardState) =>
    if (newest.upper == batch.lower) batch
    else batch.rebased(newest.upper, math.max(batch.upper - 1, BatchCommit.commitTime(newest.upper)))
}
