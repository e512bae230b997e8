package sparkpersist.dml

import java.util.UUID

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.write.{DeltaBatchWrite, DeltaWrite, DeltaWriterFactory, LogicalWriteInfo, PhysicalWriteInfo, WriterCommitMessage}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command

import sparkpersist.shard.{ShardHandle, ShardState, UpperMismatch}
import sparkpersist.write.{BatchCommit, DataSourceWriteOptions, RunCommitMessage, RunSpec, WriteInput}

/**
 * The write of a row-level operation: every task turns the rows Spark hands it into updates at the
 * statement's commit time ([[RetractionWriter]]); the driver commits the runs as one batch with
 * one compare-and-set on the upper of the `state` the statement read ([[BatchCommit]]). A statement
 * that deletes nothing and inserts nothing commits nothing.
 *
 * A commit by anyone else between the read and this commit (an append, another statement, a
 * compaction that moved the upper) fails the statement with [[ConcurrentShardUpdate]], its parts
 * deleted: the retractions were worked out against a snapshot that is no longer the latest, and
 * committing them later could retract a row twice. Running the statement again reads the new
 * snapshot.
 */
final class RetractionWrite(shard: ShardHandle, state: ShardState, cmd: Command, info: LogicalWriteInfo)
  extends DeltaWrite with DeltaBatchWrite {

  private val commitTime = BatchCommit.commitTime(state.upper)
  private val batch = new BatchCommit(shard, UUID.randomUUID().toString, state.upper,
    s"the commit time $commitTime", state.schema)
  private val spec = RunSpec.forWrite(SparkSession.active, shard.name, state.schema, batch.batchDir,
    DataSourceWriteOptions.parse(shard.name, info.options(), streaming = false), stampTime = None)

  override def description(): String = s"sparkpersist $cmd of shard '${shard.name}' at time $commitTime"

  override def toBatch: DeltaBatchWrite = this

  override def createBatchWriterFactory(info: PhysicalWriteInfo): DeltaWriterFactory =
    new RetractionWriterFactory(spec, commitTime, WriteInput.sortKeys(state.schema, timeVaries = true, update = true))

  override def useCommitCoordinator(): Boolean = true

  override def commit(messages: Array[WriterCommitMessage]): Unit =
    ConcurrentShardUpdate.onConflict(shard.name, cmd.toString) {
      batch.commit(messages.toSeq.map(_.asInstanceOf[RunCommitMessage].parts))
    }

  override def abort(messages: Array[WriterCommitMessage]): Unit = batch.abort()
}

/** A statement (`DELETE`, `UPDATE`, `MERGE`, an overwrite) lost the race to another commit; nothing was written. */
final class ConcurrentShardUpdate(val shard: String, val statement: String, cause: UpperMismatch)
  extends IllegalStateException(s"$statement on shard '$shard' conflicted with a concurrent commit: it read the " +
    s"shard at upper ${cause.expected}, which is now ${cause.actual}. Nothing was written; run the statement " +
    "again to apply it to the shard as it is now.", cause)

object ConcurrentShardUpdate {
  /** Runs `commit`, `statement`'s compare-and-set on shard `shard`; a lost race becomes [[ConcurrentShardUpdate]]. */
  def onConflict[T](shard: String, statement: String)(commit: => T): T =
    try commit
    catch { case e: UpperMismatch => throw new ConcurrentShardUpdate(shard, statement, e) }
}
