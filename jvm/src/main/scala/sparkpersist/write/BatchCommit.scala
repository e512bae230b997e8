package sparkpersist.write

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import sparkpersist.errors.PersistErrors
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{BatchMeta, CommitInfo, PartMeta, RunMeta, SchemaChanged, ShardHandle, StreamEpoch}

/**
 * The driver side of every commit of a batch ([[ShardWriter]], the DSv2 [[PersistBatchWrite]],
 * streaming writes, row-level operations, whole-part deletes): turn the runs the tasks wrote into
 * one batch (or negate parts whole, [[commitNegations]]), check its times against the shard's
 * upper, and commit it with compare-and-set, or delete every part of the batch when anything fails.
 *
 * @param expectedUpper the shard's upper when the write started; the batch's lower
 * @param timeSource    where times came from, named in the error when one is below the upper
 * @param writtenUnder  the shard's schema the parts were written under: the commit fails with
 *                      [[sparkpersist.shard.SchemaChanged]] if the shard's schema changed meanwhile
 * @param alteredFrom   for a write that merges its schema ([[SchemaMerge]]): the shard's schema
 *                      before, which the batch changes to `writtenUnder` as it commits, at once
 * @param rebase        how the batch follows commits that landed after `expectedUpper` ([[Rebase]]:
 *                      a statement's, a blind append's); without one, any commit that moved the
 *                      upper fails this one with [[sparkpersist.shard.UpperMismatch]]
 * @param info          what writes the batch ([[CommitInfo]]), recorded with it
 */
final class BatchCommit(shard: ShardHandle, val batchId: String, val expectedUpper: Long, timeSource: String,
    writtenUnder: ShardSchema, alteredFrom: Option[ShardSchema] = None, rebase: Option[Rebase] = None,
    info: Option[CommitInfo] = None) {

  /** The directory holding this batch's parts, and nothing else. */
  val batchDir: Path = shard.newPartPath(batchId).getParent

  /**
   * Commits the runs (one per task, in task order; empty runs are dropped) as one batch and
   * returns it. A write of no rows commits nothing and returns an empty batch with
   * `lower == upper == expectedUpper`. On any failure the batch's parts are deleted (unless the
   * batch is, after all, in the shard's state) and the error is rethrown. `epochs` names the
   * streaming micro-batch that wrote the runs, if one did ([[sparkpersist.shard.StreamEpoch]]).
   */
  def commit(runs: Seq[Seq[WrittenPart]], epochs: IndexedSeq[StreamEpoch] = IndexedSeq.empty): BatchMeta =
    onFailureDelete {
      val parts = runs.flatten
      if (parts.isEmpty) {
        deleteParts()
        alteredFrom.foreach { before =>
          shard.log.alterSchema(s => if (s == before) writtenUnder else if (s == writtenUnder) s else throw new SchemaChanged(shard.name))
        }
        BatchMeta(batchId, expectedUpper, expectedUpper, IndexedSeq.empty, System.currentTimeMillis())
      } else {
        val minTime = parts.iterator.map(_.meta.minTime).min
        if (minTime < expectedUpper) {
          throw PersistErrors.invalidWrite(shard.name, s"every time must be >= " +
            s"the shard's upper $expectedUpper (times below it are already complete), but $timeSource holds " +
            s"$minTime. Nothing was written.")
        }
        val maxTime = parts.iterator.map(_.meta.maxTime).max
        if (maxTime == Long.MaxValue) {
          throw PersistErrors.invalidWrite(shard.name, s"$timeSource holds " +
            s"${Long.MaxValue}, which leaves no upper above it. Nothing was written.")
        }
        append(BatchMeta(batchId, expectedUpper, maxTime + 1, runsOf(runs), System.currentTimeMillis(), epochs = epochs,
          commit = info))
      }
    }

  /**
   * Commits one batch of negations ([[PartMeta.negation]]): each of `parts` (insert-only) retracted
   * whole at `time` (at least the expected upper), by reference to its file. No file is written.
   */
  def commitNegations(parts: Seq[PartMeta], time: Long): BatchMeta = {
    require(time >= expectedUpper, s"a negation at $time is below the shard's upper $expectedUpper")
    append(BatchMeta(batchId, expectedUpper, time + 1, IndexedSeq(RunMeta(parts.map(_.negation(time)).toIndexedSeq)),
      System.currentTimeMillis(), commit = info))
  }

  /**
   * The one commit of every batch: compare-and-set on the expected upper (or, with a [[Rebase]],
   * onto the newest state, as the rebase moves it), then the commit hooks. Returns the batch committed.
   */
  private def append(batch: BatchMeta): BatchMeta = {
    val committed = rebase match {
      case None =>
        shard.log.compareAndAppend(expectedUpper, batch, writtenUnder, alteredFrom)
        batch
      case Some(r) =>
        var onto = batch
        shard.log.appendOnto(writtenUnder, alteredFrom) { newest =>
          onto = r.onto(batch, newest)
          onto
        }
        onto
    }
    CommitHook.afterCommit(shard, committed)
    committed
  }

  /**
   * The runs the tasks wrote (one per task, in task order) as runs of this batch: keyed relative
   * to the shard, empty runs dropped. Files left in the batch's directory by failed task
   * attempts, which no run refers to (as a part or as its positions file), are deleted first.
   */
  def runsOf(runs: Seq[Seq[WrittenPart]]): IndexedSeq[RunMeta] = {
    deleteStrays(runs.flatten.flatMap(p => p.path +: p.meta.positions.toSeq).map(new Path(_).getName).toSet)
    runs.filter(_.nonEmpty).map(run => RunMeta(run.map(keyed).toIndexedSeq)).toIndexedSeq
  }

  /** Deletes the batch's directory: every part any task attempt wrote. */
  def deleteParts(): Unit = {
    val fs = batchDir.getFileSystem(shard.fs.getConf)
    if (fs.exists(batchDir)) fs.delete(batchDir, true)
  }

  /** Deletes the batch's parts, unless the batch made it into the shard's state after all. */
  def abort(): Unit = if (!committed) deleteParts()

  /** Runs `body`; when it fails, [[abort]]s and rethrows. */
  def onFailureDelete[T](body: => T): T =
    try body
    catch {
      case NonFatal(e) =>
        try abort()
        catch { case NonFatal(cleanup) => e.addSuppressed(cleanup) }
        throw e
    }

  /** The part, its key (and its positions file's) relative to the shard. */
  private def keyed(part: WrittenPart) = part.meta.copy(key = shard.relativeKey(new Path(part.path)),
    positions = part.meta.positions.map(p => shard.relativeKey(new Path(p))))

  /** Whether the shard's state holds this batch; when that cannot be read, assume it may. */
  private def committed: Boolean =
    try shard.state.batches.exists(_.id == batchId)
    catch { case NonFatal(_) => true }

  /** Removes parts left by failed task attempts, which no run refers to. */
  private def deleteStrays(kept: Set[String]): Unit = {
    val fs = batchDir.getFileSystem(shard.fs.getConf)
    if (fs.exists(batchDir)) {
      fs.listStatus(batchDir).filterNot(s => kept(s.getPath.getName)).foreach(s => fs.delete(s.getPath, true))
    }
  }
}

object BatchCommit {
  /** The time an append-only write stamps on its rows: now, but never below the shard's upper. */
  def commitTime(upper: Long): Long = math.max(System.currentTimeMillis(), upper)
}
