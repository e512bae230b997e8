package sparkpersist.compact

import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.sql.classic.SparkSession

import org.apache.spark.sql.types.StructType

import sparkpersist.PersistConf
import sparkpersist.cluster.{ClusteredRuns, Reservoir}
import sparkpersist.consolidate.{MergeKey, RunChains}
import sparkpersist.read.{OpenFiles, PartFile, PartFileReader}
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.ShardHandle
import sparkpersist.stats.MemberPieces
import sparkpersist.write.{BatchCommit, RunSpec, RunWriter, WrittenPart}

/**
 * The Spark job of one compaction round: one task per [[MergeGroup]], each reading its group's
 * parts and writing their merged run ([[CompactedRows]]) as the parts of the group's new batch,
 * with the writer's own [[RunWriter]], so the parts get fresh, exact stats from the same
 * collectors and stats budget as any write. A clustering group first samples its clustering
 * columns, then writes its rows along the curve they suggest ([[ClusteredRuns]]), one run per part.
 * The job carries a description (Spark UI, progress bar). Returns each group's runs, in group order.
 */
private[compact] object MergeJob {

  /** Rows of a group's clustering columns sampled to lay it out ([[sparkpersist.cluster.Layout]]). */
  private val ClusterSampleRows = 10000

  /**
   * What one task needs: its group's runs, how to rewrite them, its batch directory, and for a
   * clustering group how many buckets (parts) to cut its rows into (0: not clustered) and the seed
   * of its sample (the group's lower bound: a retried task, or the same history, lays out alike).
   */
  private final case class GroupTask(runs: Seq[Seq[PartFile]], advanceTo: Long, consolidate: Boolean,
      stampTime: Option[Long], batchDir: String, buckets: Int, seed: Long)

  /** A clustering group's buckets: its rows over the rows of a part of `partBytes` at its bytes per row. */
  private[compact] def buckets(g: MergeGroup, partBytes: Long, maxRowsPerPart: Long): Int =
    if (g.clusterBy.isEmpty || g.rows == 0) 0
    else {
      val rowsPerPart = math.max(1L, math.min(maxRowsPerPart, (BigInt(partBytes) * g.rows / math.max(1L, g.bytes)).toLong))
      math.min((g.rows + rowsPerPart - 1) / rowsPerPart, Int.MaxValue / 2L).toInt
    }

  /**
   * Columns indexed in some input part (with a membership filter): their merged parts get one too.
   * Whether the user named them or [[sparkpersist.stats.AutoIndex]] chose them is not recorded, so
   * the budget drops their filters first, as automatic ones.
   */
  private def indexed(groups: Seq[MergeGroup]): Set[Int] =
    groups.iterator.flatMap(_.batches).flatMap(_.runs).flatMap(_.parts).flatMap(_.stats)
      .flatMap(_.columns.collect { case (id, c) if MemberPieces.in(c) => id }).toSet

  def run(spark: SparkSession, shard: ShardHandle, schema: ShardSchema, groups: Seq[MergeGroup],
      outputs: Seq[BatchCommit], keepStats: Set[Int], cluster: ClusterSettings, description: String)
      : Seq[Seq[Seq[WrittenPart]]] = {
    val maxRowsPerPart = PersistConf.MaxRowsPerPart.get(spark.sessionState.conf)
    val tasks = groups.zip(outputs).map { case (g, out) =>
      // Runs chained end to end where their key ranges allow: a task holds one open part per chain, not per
      // run (a batch written by 10,000 tasks is 10,000 runs).
      val runs = RunChains(g.batches.flatMap(_.runs).map(_.parts), schema, timeKeyed = true)
        .map(_.map(p => PartFile.of(shard.partUri(p), p, verify = false)))
      GroupTask(runs, g.advanceTo, g.consolidates, g.stampTime, out.batchDir.toString,
        buckets(g, cluster.partBytes, maxRowsPerPart), g.lower)
    }
    val reader = PartFileReader(spark, schema, schema.dataSchema)
    // The clustering columns (every clustering group of a round has the shard's): read alone to sample them.
    val clusterBy = groups.flatMap(_.clusterBy).distinct.flatMap(schema.columnById)
    val sampler = if (clusterBy.isEmpty) None else Some(PartFileReader(spark, schema, StructType(clusterBy.map(_.toField))))
    val clusterOrdinals = clusterBy.map(c => schema.columns.indexWhere(_.id == c.id)).toIndexedSeq
    val clusterTypes = clusterBy.map(_.dataType).toIndexedSeq
    val layoutKind = cluster.layout
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
          val base = t.stampTime.fold(inRow)(stamped.stampedAt).inBatchDir(new org.apache.hadoop.fs.Path(t.batchDir))
          val open = new OpenFiles
          try {
            val rows = CompactedRows(name, schema, reader, t.runs, t.advanceTo, t.consolidate, t.stampTime.isDefined, open)
            if (t.buckets == 0) Seq(RunWriter.writeAll(base, task.partitionId(), task.attemptNumber(), rows))
            else {
              val sample = new Reservoir(ClusterSampleRows, t.seed)
              t.runs.flatten.foreach(p => sampler.get.rowsAsOf(p, Long.MaxValue, open).foreach(sample.offer))
              val layout = layoutKind.fromSample(sample.sample, clusterOrdinals.indices, clusterTypes, t.buckets)
                .at(clusterOrdinals)
              val written = if (t.stampTime.isDefined) schema.dataSchema else reader.schema
              val key = MergeKey.ordinals(schema, reader.schema) ++ (if (t.stampTime.isDefined) Nil else Seq(reader.timeOrdinal))
              ClusteredRuns.write(base, task.partitionId(), task.attemptNumber(), written, key, clusterOrdinals, layout,
                rows)
            }
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
