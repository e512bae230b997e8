package sparkpersist.compact

import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.sql.classic.SparkSession

import sparkpersist.schema.ShardSchema
import sparkpersist.shard.ShardHandle
import sparkpersist.source.{OpenFiles, PartFile, PartFileReader}
import sparkpersist.write.{BatchCommit, RunSpec, RunWriter, WrittenPart}

/**
 * The Spark job of one compaction round: one task per [[MergeGroup]], each reading its group's
 * parts and writing their merged run ([[CompactedRows]]) as the parts of the group's new batch,
 * with the writer's own [[RunWriter]], so the parts get fresh, exact stats from the same
 * collectors and stats budget as any write. The job carries a description (Spark UI, progress
 * bar). Returns each group's parts, in group order.
 */
private[compact] object MergeJob {

  /** What one task needs: its group's runs, how to rewrite them, and its batch directory. */
  private final case class GroupTask(runs: Seq[Seq[PartFile]], advanceTo: Long, consolidate: Boolean,
      stampTime: Option[Long], batchDir: String)

  def run(spark: SparkSession, shard: ShardHandle, schema: ShardSchema, groups: Seq[MergeGroup],
      outputs: Seq[BatchCommit], keepStats: Set[Int], description: String): Seq[Seq[WrittenPart]] = {
    val tasks = groups.zip(outputs).map { case (g, out) =>
      val runs = g.batches.flatMap(_.runs).map(_.parts.map(p => PartFile.of(shard.partPath(p).toUri.toString, p, verify = false)))
      GroupTask(runs, g.advanceTo, g.consolidates, g.stampTime, out.batchDir.toString)
    }
    val reader = PartFileReader(spark, schema, schema.dataSchema)
    // One Parquet configuration per part layout, shared by all groups (the first batch
    // directory is a placeholder: each task writes into its own).
    def spec(stamp: Option[Long]) =
      RunSpec.forSession(spark, shard.name, schema, outputs.head.batchDir, None, stamp, keepStats)
    val inRow = spec(None)
    val stamped = spec(Some(0L))
    val name = shard.name
    withJobDescription(spark.sparkContext, description) {
      spark.sparkContext.runJob(spark.sparkContext.parallelize(tasks, tasks.size),
        (task: TaskContext, it: Iterator[GroupTask]) => it.toSeq.flatMap { t =>
          val base = t.stampTime.fold(inRow)(stamped.stampedAt)
          val open = new OpenFiles
          try {
            val rows = CompactedRows(name, schema, reader, t.runs, t.advanceTo, t.consolidate, t.stampTime.isDefined, open)
            RunWriter.writeAll(base.inBatchDir(new org.apache.hadoop.fs.Path(t.batchDir)), task.partitionId(),
              task.attemptNumber(), rows)
          } finally open.close()
        }).toSeq
    }
  }

  /** Spark's local property for a job's description (`SparkContext.SPARK_JOB_DESCRIPTION`, private to Spark). */
  private val JobDescription = "spark.job.description"

  private def withJobDescription[T](sc: SparkContext, description: String)(body: => T): T = {
    val previous = sc.getLocalProperty(JobDescription)
    sc.setJobDescription(description)
    try body finally sc.setJobDescription(previous)
  }
}
