package sparkpersist.compact

import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.sql.classic.SparkSession

import sparkpersist.read.{OpenFiles, PartFile, PartFileReader}
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.ShardHandle
import sparkpersist.stats.MembershipFilter
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

  /**
   * Columns indexed in some input part (with a membership filter): their merged parts get one too.
   * Whether the user named them or [[sparkpersist.stats.AutoIndex]] chose them is not recorded, so
   * the budget drops their filters first, as automatic ones.
   */
  private def indexed(groups: Seq[MergeGroup]): Set[Int] =
    groups.iterator.flatMap(_.batches).flatMap(_.runs).flatMap(_.parts).flatMap(_.stats)
      .flatMap(_.columns.collect { case (id, c) if MembershipFilter.in(c) => id }).toSet

  def run(spark: SparkSession, shard: ShardHandle, schema: ShardSchema, groups: Seq[MergeGroup],
      outputs: Seq[BatchCommit], keepStats: Set[Int], description: String): Seq[Seq[WrittenPart]] = {
    val tasks = groups.zip(outputs).map { case (g, out) =>
      val runs = g.batches.flatMap(_.runs).map(_.parts.map(p => PartFile.of(shard.partUri(p), p, verify = false)))
      GroupTask(runs, g.advanceTo, g.consolidates, g.stampTime, out.batchDir.toString)
    }
    val reader = PartFileReader(spark, schema, schema.dataSchema)
    // One Parquet configuration per part layout, shared by all groups (the first batch
    // directory is a placeholder: each task writes into its own).
    def spec(stamp: Option[Long]) =
      RunSpec.forSession(spark, shard.name, schema, outputs.head.batchDir, None, stamp, keepStats, indexed(groups),
        protectIndexed = false)
    val inRow = spec(None)
    val stamped = spec(Some(0L))
    val name = shard.name
    inJobGroup(spark.sparkContext, description) {
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

  /** Spark's local properties of a job group (`SparkContext`'s constants are private to Spark). */
  private val GroupProperties = Seq("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")

  /** How long a failed job's other tasks get to stop before their parts are deleted anyway. */
  private val StopWaitNanos = 60L * 1000 * 1000 * 1000

  /**
   * Runs `body`'s job in a job group of its own, described by `description`. When the job fails,
   * its other tasks may still be writing parts: the group is cancelled and its running tasks
   * awaited, so that deleting the round's parts afterwards deletes them all (a part a task still
   * wrote after the wait is an orphan for garbage collection).
   */
  private def inJobGroup[T](sc: SparkContext, description: String)(body: => T): T = {
    val previous = GroupProperties.map(k => k -> sc.getLocalProperty(k))
    val group = s"sparkpersist-compact-${java.util.UUID.randomUUID()}"
    sc.setJobGroup(group, description, interruptOnCancel = true)
    try body
    catch {
      case e: Throwable =>
        sc.cancelJobGroup(group)
        awaitStopped(sc, group)
        throw e
    } finally previous.foreach { case (k, v) => sc.setLocalProperty(k, v) }
  }

  private def awaitStopped(sc: SparkContext, group: String): Unit = {
    val tracker = sc.statusTracker
    def running = tracker.getJobIdsForGroup(group).iterator.flatMap(tracker.getJobInfo).flatMap(_.stageIds)
      .flatMap(tracker.getStageInfo).exists(_.numActiveTasks > 0)
    val deadline = System.nanoTime() + StopWaitNanos
    while (running && System.nanoTime() < deadline) Thread.sleep(10)
  }
}
