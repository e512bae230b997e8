package sparkpersist.isolation

import scala.util.control.NonFatal

import sparkpersist.PersistConf
import sparkpersist.positional.PositionalSnapshot
import sparkpersist.shard.{BatchMeta, PartMeta, ShardHandle, ShardState}
import sparkpersist.write.{BatchCommit, Rebase}

/**
 * The [[Rebase]] of one statement's batch: when the shard moved on after the state the statement
 * read (`read`), it looks at each state version committed since, in order, and either finds one
 * that conflicts with the statement under `level` ([[IsolationLevel]]) and fails with
 * [[ConcurrentShardUpdate]] naming it, or moves the batch to follow the newest state
 * ([[BatchMeta.rebased]]: its updates at a time at or above the new upper, no file rewritten, its
 * retractions still naming the rows it read). Nothing is read again: the statement's rows stand.
 *
 * What it follows, per state version:
 *  - a replacement of batches (a compaction) carries the rows of the parts the statement read
 *    into the parts it wrote, so those count as read from then on; one that left no part where
 *    such rows were (`drop_batch`) conflicts: the rows the statement retracts are gone;
 *  - an appended batch conflicts if it retracts a row of a file the statement read: a part of it
 *    negated whole, a row named by position ([[sparkpersist.positional.RetractedPositions]]), or
 *    any retraction by value (which names no part); under [[IsolationLevel.Serializable]], also
 *    if the statement's condition does not rule out one of its parts;
 *  - a moved `since` changes nothing; a changed schema fails the commit before this runs.
 * Versions of the log that garbage collection already deleted cannot be looked at: then the
 * statement conflicts, naming the grace period that keeps them.
 *
 * The statement's retractions by position stay valid for the parts that still exist; for parts a
 * compaction replaced, reads cancel them by value ([[sparkpersist.positional.PositionalSnapshot]]).
 * Its batch moves only while it lost the race for the next version fewer than `maxRebases` times.
 */
final class StatementRebase(shard: ShardHandle, statement: String, read: ShardState, reads: StatementReads,
    level: IsolationLevel, maxRebases: Long) extends Rebase {

  /** The newest state looked at, and the files whose rows the statement may retract, as of it. */
  private var checked: ShardState = read
  private var files: Set[String] = reads.files(read)
  private var rebases = 0L

  override def onto(batch: BatchMeta, newest: ShardState): BatchMeta = synchronized {
    if (newest.seqNo > checked.seqNo) {
      versionsSince(newest).sliding(2).foreach {
        case Seq(before, after) => follow(before, after)
        case _ =>
      }
      checked = newest
    }
    if (newest.upper == batch.lower) batch
    else if (!batch.oneTime) conflict(s"its batch holds updates of several times and cannot follow them")
    else {
      rebases += 1
      if (rebases > maxRebases) {
        conflict(s"the shard moved on $rebases times while it committed (at most ${PersistConf.StatementMaxRebases.key} " +
          s"= $maxRebases rebases)")
      }
      batch.rebased(newest.upper, math.max(batch.upper - 1, BatchCommit.commitTime(newest.upper)))
    }
  }

  /** The states from [[checked]] to `newest`, each version once. */
  private def versionsSince(newest: ShardState): Seq[ShardState] =
    try shard.log.statesFrom(checked.seqNo).takeWhile(_.seqNo <= newest.seqNo).toVector
    catch {
      case NonFatal(e) => conflict(s"the state versions after version ${checked.seqNo}, which it read, are no longer " +
        s"in the shard's log (${e.getMessage}); garbage collection keeps those younger than " +
        s"${PersistConf.GcGraceMs.key}, so a statement must not run longer than that")
    }

  /** Follows the change from `before` to `after` (one version), or fails naming it. */
  private def follow(before: ShardState, after: ShardState): Unit = {
    val beforeIds = before.batches.iterator.map(_.id).toSet
    val afterIds = after.batches.iterator.map(_.id).toSet
    val added = after.batches.filterNot(b => beforeIds(b.id))
    before.batches.filterNot(b => afterIds(b.id)).filter(_.parts.exists(p => files(p.fileKey))).foreach { replaced =>
      added.find(b => b.lower <= replaced.lower && replaced.upper <= b.upper).filter(_.partCount > 0) match {
        case Some(output) => files ++= output.parts.map(_.fileKey)
        case None => conflict(after, replaced, s"it removed batch '${replaced.id}' (drop_batch), whose rows this statement read")
      }
    }
    added.filter(_.lower >= before.upper).foreach { appended =>
      appended.parts.filter(_.hasRetractions).foreach(p => retracted(p).foreach { key =>
        conflict(after, appended, s"it retracted rows of part '$key', which this statement read")
      })
      if (level == IsolationLevel.Serializable) {
        val parts = appended.parts.filterNot(_.negated).toIndexedSeq
        val ruledOut = reads.selections.map(_.decideAmong(parts, Long.MaxValue).ruledOut)
        parts.indices.find(i => ruledOut.exists(!_.get(i))).foreach { i =>
          conflict(after, appended, s"it appended part '${parts(i).key}', whose rows this statement's condition " +
            s"may match, and the shard's isolation level is ${IsolationLevel.Serializable}")
        }
      }
    }
  }

  /** Which file the statement read `part` retracts rows of, if any (by value: it may be any). */
  private def retracted(part: PartMeta): Option[String] =
    if (part.negated) Some(part.fileKey).filter(files)
    else part.positions match {
      case Some(key) => PositionalSnapshot.positionsFile(shard, key).targets.keys.find(files)
      case None => files.headOption.map(_ => "any, by value (without positions)")
    }

  private def conflict(after: ShardState, batch: BatchMeta, why: String): Nothing = {
    val what = batch.commit.fold("")(c => s"${c.operation}, ")
    conflict(s"state version ${after.seqNo} (batch '${batch.id}', ${what}committed at " +
      s"${java.time.Instant.ofEpochMilli(batch.committedAtMs)}) conflicts with it: $why")
  }

  private def conflict(reason: String): Nothing = throw new ConcurrentShardUpdate(shard.name, statement, reason)
}

object StatementRebase {
  /** The rebase of `statement`'s batch on `shard`, which read `read`, in `spark`'s session. */
  def of(spark: org.apache.spark.sql.SparkSession, shard: ShardHandle, statement: String, read: ShardState,
      reads: StatementReads): StatementRebase =
    new StatementRebase(shard, statement, read, reads, IsolationLevel.of(read.schema),
      PersistConf.StatementMaxRebases.get(spark.sessionState.conf))
}
