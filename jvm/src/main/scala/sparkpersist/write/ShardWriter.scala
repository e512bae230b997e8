package sparkpersist.write

import java.util.UUID

import org.apache.spark.TaskContext
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.InternalRow

import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{BatchMeta, CommitInfo, ShardHandle, ShardState}

/**
 * Writes a DataFrame to a shard as one batch.
 *
 * On the driver: check the DataFrame against the shard's schema ([[WriteInput]]), fix the commit
 * time (`max(now, upper)`, for rows without a time column) and the expected upper. In one Spark
 * task per input partition: sort the partition, write it as one run of parts rolling over at
 * `maxRowsPerPart`, computing each part's stats while writing it. Back on the driver: check every
 * time is >= the expected upper and commit the batch `[expected upper, max time + 1)` with
 * compare-and-set ([[BatchCommit]]). A blind append (rows stamped with the commit time) that
 * lost the race to another writer commits after it ([[Rebase.BlindAppend]]); one whose rows carry
 * their own times then fails with [[sparkpersist.shard.UpperMismatch]]. If anything fails, the
 * written parts are deleted and the error rethrown: nothing is written.
 *
 * A DataFrame with no rows commits nothing (the upper does not move): the returned batch has no
 * runs and `lower == upper ==` the shard's upper.
 */
object ShardWriter {

  /** Writes df as one batch of `shard` and commits it; returns the committed batch. */
  def write(df: DataFrame, shard: ShardHandle, options: WriteOptions): BatchMeta = {
    val info = Some(CommitInfo.inSession(df.sparkSession.sessionState.conf, "WRITE"))
    val rebase = Some(Rebase.BlindAppend).filter(_ => WriteInput.stamped(options))
    if (options.mergeSchema) {
      val merge = SchemaMerge(df, shard, options)
      write(merge.df, shard, options, merge.state, merge.alteredFrom, rebase, info)
    } else write(df, shard, options, shard.state, rebase = rebase, info = info)
  }

  /**
   * Writes against a state read earlier: the batch commits only if `state.upper` is still the
   * upper, or, with `rebase`, after the commits that moved it as the rebase decides. With
   * `alteredFrom`, `state.schema` is not yet the shard's: the batch's commit changes the shard's
   * schema from `alteredFrom` to it ([[BatchCommit]]). `info` is recorded with the batch.
   */
  private[sparkpersist] def write(df: DataFrame, shard: ShardHandle, options: WriteOptions, state: ShardState,
      alteredFrom: Option[ShardSchema] = None, rebase: Option[Rebase] = None, info: Option[CommitInfo] = None): BatchMeta = {
    val commitTime = BatchCommit.commitTime(state.upper)
    val input = WriteInput.prepare(df, shard.name, state.schema, options, commitTime)
    val timeSource = options.timeCol.fold(s"the commit time $commitTime")(c => s"the time column '$c'")
    val commit = new BatchCommit(shard, UUID.randomUUID().toString, state.upper, timeSource, state.schema, alteredFrom,
      rebase, info)
    val spec = RunSpec.forWrite(df.sparkSession, shard.name, state.schema, commit.batchDir, options,
      WriteInput.stampTime(options, commitTime))
    val runs = commit.onFailureDelete {
      df.sparkSession.sparkContext.runJob(input.queryExecution.toRdd, (task: TaskContext, rows: Iterator[InternalRow]) =>
        RunWriter.writeAll(spec, task.partitionId(), task.attemptNumber(), rows))
    }
    commit.commit(runs.toSeq)
  }
}
