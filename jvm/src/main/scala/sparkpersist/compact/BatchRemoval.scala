package sparkpersist.compact

import java.util.UUID

import scala.util.Try

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.types.{IntegerType, LongType, StringType}

import sparkpersist.shard.{BatchMeta, BatchReplacement, CommitInfo, ShardHandle, VersionRecord}

/** What [[BatchRemoval.drop]] removed. */
final case class DroppedBatch(shard: String, batchId: String, lower: Long, upper: Long, parts: Int, rows: Long)
  extends LifecycleResult {

  def fields: Seq[ResultField] = Seq(
    ResultField("shard", StringType, shard),
    ResultField("batch_id", StringType, batchId),
    ResultField("lower", LongType, lower),
    ResultField("upper", LongType, upper),
    ResultField("parts", IntegerType, parts),
    ResultField("rows", LongType, rows))
}

/**
 * Removes one batch of a shard on purpose: the way out when a batch's parts cannot be read (a part
 * deleted or damaged outside sparkpersist with no backup, or written by a version of sparkpersist
 * that stored a null inside a column level declared NOT NULL, whose values no reader can recover).
 *
 * The batch is replaced, in one compare-and-set state version, by an empty batch over the same
 * `[lower, upper)` (as compaction replaces batches, [[BatchReplacement]]): frontiers and every other
 * batch stay, the batch's updates are gone at every time (history included), and its parts are
 * left to garbage collection. The streaming epochs it recorded stay, so a stream does not write
 * them again. Nothing else changes: the rows cannot be retracted instead, as they cannot be read.
 */
object BatchRemoval {

  /** Drops the batch `batchOrPart` names: its id, or the key, path or URI of one of its parts (as a read error names it). */
  def drop(shard: ShardHandle, batchOrPart: String, nowMs: Long = System.currentTimeMillis()): DroppedBatch = {
    val state = shard.state
    val key = Try(shard.relativeKey(new Path(batchOrPart))).toOption
    val batch = state.batches.find(_.id == batchOrPart)
      .orElse(state.batches.find(_.parts.exists(p => !p.negated && (p.key == batchOrPart || key.contains(p.key)))))
      .getOrElse(throw new IllegalArgumentException(s"Shard '${shard.name}' has no batch '$batchOrPart' and no " +
        "part at that key or path: name a batch id (persist.<shard>.batches) or a part's path as a read error names it."))
    val files = batch.parts.map(_.key).toSet
    state.batches.find(b => b.id != batch.id && b.parts.exists(p => p.negated && files(p.fileKey))).foreach { b =>
      throw new IllegalArgumentException(s"Cannot drop batch '${batch.id}' of shard '${shard.name}': batch '${b.id}' " +
        "retracts some of its parts whole (a DELETE), and would then retract rows the shard no longer holds. " +
        s"Drop batch '${b.id}' first.")
    }
    val empty = BatchMeta(s"dropped-${UUID.randomUUID()}", batch.lower, batch.upper, IndexedSeq.empty, nowMs,
      batch.appends, batch.epochs, commit = Some(CommitInfo(VersionRecord.DropBatch)))
    val (_, applied) = shard.log.replaceBatches(Seq(BatchReplacement(IndexedSeq(batch.id), empty)))
    if (applied.isEmpty) {
      throw new IllegalStateException(s"Shard '${shard.name}': batch '${batch.id}' was replaced meanwhile (by a " +
        "compaction); nothing was dropped. Find the batch holding the part again and drop it.")
    }
    DroppedBatch(shard.name, batch.id, batch.lower, batch.upper, batch.partCount, batch.rowCount)
  }
}
