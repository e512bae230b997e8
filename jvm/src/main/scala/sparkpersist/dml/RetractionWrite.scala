package sparkpersist.dml

import java.util.UUID

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.write.{DeltaBatchWrite, DeltaWrite, DeltaWriterFactory, LogicalWriteInfo, PhysicalWriteInfo, WriterCommitMessage}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command

import sparkpersist.isolation.{StatementReads, StatementRebase}
import sparkpersist.shard.{CommitInfo, ShardHandle, ShardState}
import sparkpersist.write.{BatchCommit, DataSourceWriteOptions, RunCommitMessage, RunSpec, WriteInput}

/**
 * The write of a row-level operation: every task turns the rows Spark hands it into updates at the
 * statement's commit time ([[RetractionWriter]]); the driver commits the runs as one batch on the
 * upper of the `state` the statement read ([[BatchCommit]]). A statement that deletes nothing and
 * inserts nothing commits nothing.
 *
 * When others committed between the read and this commit (appends, streaming micro-batches,
 * compactions, statements on other parts), the batch follows them unless one conflicts with
 * what the statement read ([[StatementRebase]]): then the statement fails with
 * [[sparkpersist.isolation.ConcurrentShardUpdate]] naming it, its parts deleted.
 */
final class RetractionWrite(shard: ShardHandle, state: ShardState, cmd: Command, info: LogicalWriteInfo,
    reads: StatementReads) extends DeltaWrite with DeltaBatchWrite {

  private val commitTime = BatchCommit.commitTime(state.upper)
  private val batch = {
    val spark = SparkSession.active
    new BatchCommit(shard, UUID.randomUUID().toString, state.upper, s"the commit time $commitTime", state.schema,
      rebase = Some(StatementRebase.of(spark, shard, cmd.toString, state, reads)),
      info = Some(CommitInfo.inSession(spark.sessionState.conf, cmd.toString, Some(state))))
  }
  private val spec = RunSpec.forWrite(SparkSession.active, shard.name, state.schema, batch.batchDir,
    DataSourceWriteOptions.parse(shard.name, info.options(), streaming = false), stampTime = None)

  override def description(): String = s"sparkpersist $cmd of shard '${shard.name}' at time $commitTime"

  override def toBatch: DeltaBatchWrite = this

  override def createBatchWriterFactory(info: PhysicalWriteInfo): DeltaWriterFactory =
    new RetractionWriterFactory(spec, commitTime, WriteInput.sortKeys(state.schema, timeVaries = true, update = true))

  override def useCommitCoordinator(): Boolean = true

  override def commit(messages: Array[WriterCommitMessage]): Unit =
    batch.commit(messages.toSeq.map(_.asInstanceOf[RunCommitMessage].parts))

  override def abort(messages: Array[WriterCommitMessage]): Unit = batch.abort()
}

