package sparkpersist.write

import java.util.UUID

import org.apache.spark.TaskContext
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.distributions.{Distribution, Distributions}
import org.apache.spark.sql.connector.expressions.{Expressions, SortDirection, SortOrder}
import org.apache.spark.sql.connector.write._
import org.apache.spark.sql.connector.write.streaming.StreamingWrite

import sparkpersist.schema.ReservedColumns
import sparkpersist.shard.{CommitInfo, ShardHandle}

/**
 * DSv2 write for SQL `INSERT INTO persist.x SELECT ...` and `df.writeTo(...)`: an append, every
 * row stamped with the commit time and diff +1 (or, written to `persist.x.updates`, updates with
 * their own `time` and `diff`); write options as [[DataSourceWriteOptions]] says. Spark sorts each task's rows by the shard's order key
 * ([[RequiresDistributionAndOrdering]]); each task writes one run with [[RunWriter]]; the driver
 * commits the batch with [[BatchCommit]] (compare-and-set on the upper read when the write was
 * planned) or, on abort, deletes its parts.
 */
class PersistWriteBuilder(shard: ShardHandle, info: LogicalWriteInfo) extends WriteBuilder {
  override def build(): Write = new PersistWrite(shard, info)
}

/**
 * The planned write: its required ordering, and the batch or streaming write. SQL writes take the
 * shard's data columns (an append). A streaming write ([[toStreaming]], one per micro-batch)
 * takes them in any order, and may carry `time` and `diff` columns too: it then writes those
 * updates as they are (as a DataFrame write with time and diff columns does).
 */
final class PersistWrite(shard: ShardHandle, info: LogicalWriteInfo) extends RequiresDistributionAndOrdering {
  private val state = shard.state
  private val fields = info.schema().fields.toSeq
  /** Whether the rows carry their own time and diff. */
  private val updates: Boolean = WriteInput.carriesUpdates(shard.name, fields)
  WriteInput.check(shard.name, state.schema, fields,
    if (updates) Set(ReservedColumns.Time, ReservedColumns.Diff).flatMap(n => fields.find(_.name.equalsIgnoreCase(n)).map(_.name))
    else Set.empty)

  override def requiredDistribution(): Distribution = Distributions.unspecified()

  override def requiredOrdering(): Array[SortOrder] =
    WriteInput.sortKeys(state.schema, timeVaries = updates, update = updates)
      .map(k => Expressions.sort(Expressions.column(WriteInput.quote(k)), SortDirection.ASCENDING)).toArray

  override def description(): String = s"sparkpersist ${if (updates) "updates" else "append"} to shard '${shard.name}'"

  override def toStreaming: StreamingWrite = StreamingWrites.open(shard, state, info, updates)

  /**
   * One batch: an append stamped with the commit time, or (rows with time and diff, written to
   * the shard's `.updates` table) the updates as they are, every time at or above the upper.
   */
  override def toBatch: BatchWrite = {
    val commitTime = BatchCommit.commitTime(state.upper)
    val timeSource = if (updates) s"the '${ReservedColumns.Time}' column" else s"the commit time $commitTime"
    val commit = new BatchCommit(shard, UUID.randomUUID().toString, state.upper, timeSource, state.schema,
      rebase = if (updates) None else Some(Rebase.BlindAppend),
      info = Some(CommitInfo.inSession(SparkSession.active.sessionState.conf, "WRITE")))
    val options = DataSourceWriteOptions.parse(shard.name, info.options(), streaming = false)
    val spec = RunSpec.forWrite(SparkSession.active, shard.name, state.schema, commit.batchDir, options,
      if (updates) None else Some(commitTime))
    new PersistBatchWrite(commit, new RunWriterFactory(spec))
  }
}

/** Commits the runs of every task as one batch, or deletes them. */
final class PersistBatchWrite(commit: BatchCommit, factory: RunWriterFactory) extends BatchWrite {
  override def createBatchWriterFactory(info: PhysicalWriteInfo): DataWriterFactory = factory

  override def commit(messages: Array[WriterCommitMessage]): Unit =
    commit.commit(messages.toSeq.map(_.asInstanceOf[RunCommitMessage].parts))

  override def abort(messages: Array[WriterCommitMessage]): Unit = commit.abort()
}

/** The parts one task wrote, in order. */
final case class RunCommitMessage(parts: Seq[WrittenPart]) extends WriterCommitMessage

/** Creates, in each task, the writer of that task's run (rows get `time` = commit time, diff +1). */
final class RunWriterFactory(spec: RunSpec) extends DataWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] = {
    val attempt = Option(TaskContext.get()).map(_.attemptNumber()).getOrElse(0)
    new RunDataWriter(new RunWriter(spec, partitionId, attempt))
  }
}

/** Hands each data row to the run. */
final class RunDataWriter(run: RunWriter) extends DataWriter[InternalRow] {
  override def write(row: InternalRow): Unit = run.write(row)
  override def commit(): WriterCommitMessage = RunCommitMessage(run.close())
  override def abort(): Unit = run.abort()
  override def close(): Unit = ()
}
