package sparkpersist.stream

import java.util.UUID

import org.apache.spark.TaskContext
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.connector.write.{DataWriter, LogicalWriteInfo, PhysicalWriteInfo, WriterCommitMessage}
import org.apache.spark.sql.connector.write.streaming.{StreamingDataWriterFactory, StreamingWrite}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

import sparkpersist.errors.PersistErrors
import sparkpersist.schema.{ReservedColumns, ShardSchema}
import sparkpersist.shard.{CommitInfo, PartFormat, ShardHandle, ShardState, StreamEpoch}
import sparkpersist.write.{BatchCommit, DataSourceWriteOptions, Rebase, RunCommitMessage, RunDataWriter, RunSpec, RunWriter}

/**
 * The write of one micro-batch of a streaming query to a shard (`df.writeStream.toTable(...)`),
 * exactly once. Spark plans a new write for every micro-batch, so each reads the shard's state
 * then and commits at most one batch, by compare-and-set on that upper ([[BatchCommit]]): an
 * append stamped with the commit time, or the frame's updates when it carries `time` and `diff`.
 *
 * The batch records the epoch that wrote it ([[StreamEpoch]]: the query's id, stable across
 * restarts from its checkpoint, and the micro-batch id). A query that fails after its commit and
 * before Spark records the micro-batch in the checkpoint runs that epoch again on restart; the
 * commit then finds the epoch (or a later one of the query) in the shard, deletes the parts it
 * wrote again and commits nothing. Compaction keeps each query's newest epoch on merged batches.
 *
 * Rows arrive in the frame's column order; writers project them into the part layout (the
 * shard's columns in order, then time and diff for updates) and check NOT NULL columns.
 */
final class ShardStreamingWrite(shard: ShardHandle, state: ShardState, info: LogicalWriteInfo, updates: Boolean)
  extends StreamingWrite with Logging {

  private val schema = state.schema
  private val queryId = info.queryId()
  checkBoundary(schema)

  private val commitTime = BatchCommit.commitTime(state.upper)
  private val commit = new BatchCommit(shard, UUID.randomUUID().toString, state.upper,
    if (updates) "the time column" else s"the commit time $commitTime", schema,
    rebase = if (updates) None else Some(Rebase.BlindAppend),
    info = Some(CommitInfo.inSession(SparkSession.active.sessionState.conf, "STREAMING UPDATE")))
  private val spec = RunSpec.forWrite(SparkSession.active, shard.name, schema, commit.batchDir,
    DataSourceWriteOptions.parse(shard.name, info.options(), streaming = true), if (updates) None else Some(commitTime))

  /** Where each column of the part layout is in the frame's rows. */
  private val layout: IndexedSeq[Int] = {
    val input = info.schema()
    val names = schema.columns.map(_.name) ++ (if (updates) Seq(ReservedColumns.Time, ReservedColumns.Diff) else Nil)
    names.map(n => input.fields.indexWhere(_.name.equalsIgnoreCase(n))).toIndexedSeq
  }

  /** Ordinals (in the part layout) of the NOT NULL shard columns the frame may hold nulls in. */
  private val notNull: IndexedSeq[Int] = schema.columns.indices
    .filter(i => !schema.columns(i).nullable && info.schema()(layout(i)).nullable).toIndexedSeq

  override def createStreamingWriterFactory(physical: PhysicalWriteInfo): StreamingDataWriterFactory =
    new EpochRunWriterFactory(spec, PartFormat.partSchema(schema, stamped = !updates), layout, notNull,
      schema.columns.map(_.name).toIndexedSeq, shard.name)

  override def commit(epochId: Long, messages: Array[WriterCommitMessage]): Unit = {
    val epoch = StreamEpoch(queryId, epochId)
    shard.state.batches.find(_.epochs.exists(e => e.queryId == queryId && e.epochId >= epochId)) match {
      case Some(batch) =>
        logInfo(s"Shard '${shard.name}': epoch $epochId of query $queryId is already committed (batch " +
          s"${batch.id}); its replay writes nothing.")
        commit.deleteParts()
      case None =>
        commit.commit(messages.toSeq.map(_.asInstanceOf[RunCommitMessage].parts), IndexedSeq(epoch))
    }
  }

  override def abort(epochId: Long, messages: Array[WriterCommitMessage]): Unit = commit.abort()

  override def toString: String = s"ShardStreamingWrite(${shard.name})"

  /** CHAR/VARCHAR columns get Spark's length checks from SQL writes only; a stream cannot honour them. */
  private def checkBoundary(schema: ShardSchema): Unit =
    if (!SQLConf.get.charVarcharAsString) {
      schema.columns.find(c => c.declaredType != c.dataType).foreach { c =>
        throw PersistErrors.unsupported(s"Cannot stream into shard '${shard.name}'", s"column '${c.name}' is " +
          s"${c.declaredType.sql}, whose length a streaming write does not check. Write it with INSERT INTO, " +
          "or cast the column to STRING in a new shard.")
      }
    }
}

/** Creates, in each task of a micro-batch, the writer of that task's run. */
final class EpochRunWriterFactory(
    spec: RunSpec,
    partSchema: StructType,
    layout: IndexedSeq[Int],
    notNull: IndexedSeq[Int],
    columnNames: IndexedSeq[String],
    shardName: String) extends StreamingDataWriterFactory {

  override def createWriter(partitionId: Int, taskId: Long, epochId: Long): DataWriter[InternalRow] = {
    val attempt = Option(TaskContext.get()).map(_.attemptNumber()).getOrElse(0)
    val run = new RunDataWriter(new RunWriter(spec, partitionId, attempt))
    val projection = new ProjectingInternalRow(partSchema, layout)
    new DataWriter[InternalRow] {
      override def write(row: InternalRow): Unit = {
        projection.project(row)
        notNull.foreach { i =>
          if (projection.isNullAt(i)) {
            throw PersistErrors.invalidWrite(shardName, s"column '${columnNames(i)}' of " +
              "the shard is NOT NULL, but the stream holds a null in it. Filter or fill the nulls before writing.")
          }
        }
        run.write(projection)
      }
      override def commit(): WriterCommitMessage = run.commit()
      override def abort(): Unit = run.abort()
      override def close(): Unit = run.close()
    }
  }
}
