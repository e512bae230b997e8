package sparkpersist.compact

import java.util.UUID

import scala.util.control.NonFatal

import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.types.{IntegerType, LongType, StringType}
import org.slf4j.LoggerFactory

import sparkpersist.iceberg.IcebergCommitHook
import sparkpersist.cluster.{AutoClustering, FilterWorkload}
import sparkpersist.shard.{CommitInfo, ShardHandle, ShardState, VersionRecord}
import sparkpersist.write.BatchCommit

/**
 * What one compaction did. `groupsLost` counts merged groups whose batches another compaction
 * replaced first: their parts were deleted and nothing of theirs was committed. `windows` says,
 * per time window, what it did there and why ([[WindowOutcome]]).
 */
final case class CompactionResult(
    shard: String,
    sinceBefore: Long,
    since: Long,
    rounds: Int,
    groupsMerged: Int,
    groupsLost: Int,
    batchesBefore: Int,
    batchesAfter: Int,
    partsBefore: Int,
    partsAfter: Int,
    rowsRead: Long,
    rowsWritten: Long,
    bytesRead: Long,
    bytesWritten: Long,
    millis: Long,
    gc: Option[GcResult],
    windows: Seq[WindowOutcome] = Nil) extends LifecycleResult {

  def fields: Seq[ResultField] = Seq(
    ResultField("shard", StringType, shard),
    ResultField("since_before", LongType, sinceBefore),
    ResultField("since", LongType, since),
    ResultField("rounds", IntegerType, rounds),
    ResultField("groups_merged", IntegerType, groupsMerged),
    ResultField("groups_lost", IntegerType, groupsLost),
    ResultField("batches_before", IntegerType, batchesBefore),
    ResultField("batches_after", IntegerType, batchesAfter),
    ResultField("parts_before", IntegerType, partsBefore),
    ResultField("parts_after", IntegerType, partsAfter),
    ResultField("rows_read", LongType, rowsRead),
    ResultField("rows_written", LongType, rowsWritten),
    ResultField("bytes_read", LongType, bytesRead),
    ResultField("bytes_written", LongType, bytesWritten),
    ResultField("millis", LongType, millis),
    ResultField("gc_parts_deleted", IntegerType, gc.map(_.partsDeleted.size).orNull),
    ResultField("gc_state_files_deleted", IntegerType, gc.map(_.stateFilesDeleted.size).orNull),
    ResultField("windows", WindowOutcome.dataType, windows.map(_.toRow)))
}

/**
 * Compacts one shard: moves since by the retention, then runs rounds of plan
 * ([[CompactionPlanner]]), merge (one Spark job, [[MergeJob]]) and commit, until the plan is
 * empty or `maxRounds` ran.
 *
 * A round commits all its groups in one state version by compare-and-set
 * ([[sparkpersist.shard.StateLog.replaceBatches]]): a batch appended meanwhile stays, since a group
 * replaces only the batches it read. A group whose batches another compaction replaced first is
 * dropped and its parts deleted; the next round plans again from the new state. On any failure
 * the round's uncommitted parts are deleted and the error rethrown: nothing half-done is visible.
 */
object Compactor {
  private val log = LoggerFactory.getLogger(getClass)

  /** Enough rounds for any tier climb; each round strictly shrinks the batch count or consolidates. */
  val DefaultMaxRounds = 64

  /**
   * @param budgetBytes when set, each round merges the smallest groups first, up to this many
   *                    input bytes (automatic compaction: a write never pays for all the history)
   * @param keepStats   column ids whose stats the stats budget trims last, as on write
   */
  def compact(spark: SparkSession, shard: ShardHandle, settings: CompactionSettings,
      budgetBytes: Option[Long] = None, maxRounds: Int = DefaultMaxRounds, keepStats: Set[Int] = Set.empty,
      gc: Option[GcSettings] = None): CompactionResult = {
    val started = System.nanoTime()
    val before = shard.state
    settings.retentionMs.foreach { r =>
      val since = Retention.since(before, r)
      if (since > before.since) shard.log.downgradeSince(since)
    }
    // A shard clustered `auto`: the columns its workload chose, once for all rounds.
    val planning = if (!before.schema.clusterAuto) settings else {
      FilterWorkload.flush(shard)
      val evidence = FilterWorkload.evidence(shard, settings.cluster.workloadMs)
      settings.copy(cluster = settings.cluster.copy(chosen = AutoClustering.choose(shard.state, evidence)))
    }
    var totals = Totals()
    var rounds = 0
    var done = false
    val report = new WindowReport(settings.windowMs)
    while (!done && rounds < maxRounds) {
      val state = shard.state
      val plans = CompactionPlanner.windows(state, planning)
      val planned = plans.flatMap(_.groups)
      val groups = budgetBytes.fold(planned)(within(planned, _))
      report.round(plans, groups)
      if (groups.isEmpty) done = true
      else {
        rounds += 1
        totals += round(spark, shard, state, groups, keepStats, planning, budgetBytes.isDefined, rounds)
      }
    }
    val after = shard.state
    if (rounds > 0) IcebergCommitHook.afterChange(spark, shard)
    val collected = gc.map(GarbageCollector.collect(shard, _))
    CompactionResult(shard.name, before.since, after.since, rounds, totals.merged, totals.lost,
      before.batches.size, after.batches.size, before.partCount, after.partCount, totals.rowsRead,
      totals.rowsWritten, totals.bytesRead, totals.bytesWritten, (System.nanoTime() - started) / 1000000,
      collected, report.outcomes(before, after))
  }

  /** The smallest groups first (they cut the most batches per byte), up to `budget` input bytes. */
  private[compact] def within(groups: Seq[MergeGroup], budget: Long): Seq[MergeGroup] = {
    val chosen = Seq.newBuilder[(MergeGroup, Int)]
    var spent = 0L
    val bySize = groups.zipWithIndex.sortBy { case (g, i) => (g.bytes, i) }.iterator
    var fits = true
    while (fits && bySize.hasNext) {
      val next = bySize.next()
      spent += next._1.bytes
      fits = spent <= budget
      if (fits) chosen += next
    }
    chosen.result().sortBy(_._2).map(_._1)
  }

  private final case class Totals(merged: Int = 0, lost: Int = 0, rowsRead: Long = 0, rowsWritten: Long = 0,
      bytesRead: Long = 0, bytesWritten: Long = 0) {
    def +(o: Totals): Totals = Totals(merged + o.merged, lost + o.lost, rowsRead + o.rowsRead,
      rowsWritten + o.rowsWritten, bytesRead + o.bytesRead, bytesWritten + o.bytesWritten)
  }

  /**
   * Merges `groups` in one Spark job and commits the outcome in one state version, each merged batch
   * recording the compaction's settings ([[CommitInfo]], shown by the shard's history).
   */
  private def round(spark: SparkSession, shard: ShardHandle, state: ShardState, groups: Seq[MergeGroup],
      keepStats: Set[Int], settings: CompactionSettings, auto: Boolean, round: Int): Totals = {
    val cluster = settings.cluster
    def info(g: MergeGroup) = CommitInfo.inSession(spark.sessionState.conf,
      if (g.clusterBy.nonEmpty) VersionRecord.Clustering else VersionRecord.Compaction, parameters = Map(
        "round" -> round.toString, "automatic" -> auto.toString, "fanIn" -> settings.fanIn.toString,
        "targetBytes" -> settings.targetBytes.toString, "windowMs" -> settings.windowMs.toString))
    val outputs = groups.map(g => new BatchCommit(shard, UUID.randomUUID().toString, g.lower, "compaction", state.schema))
    val clustering = groups.count(_.clusterBy.nonEmpty)
    val description = s"sparkpersist compact '${shard.name}' round $round: ${groups.map(_.batches.size).sum} " +
      s"batches into ${groups.size} (${groups.map(_.rows).sum} rows, since ${state.since}" +
      (if (clustering > 0) s", $clustering clustered, layout ${cluster.layout.name})" else ")")
    try {
      val written = MergeJob.run(spark, shard, state.schema, groups, outputs, keepStats, cluster, description)
      val now = System.currentTimeMillis()
      val replacements = groups.zip(outputs).zip(written).map { case ((g, out), runs) =>
        g.replacement(out.batchId, out.runsOf(runs), now, info(g)).copy(writtenUnder = Some(state.schema))
      }
      val (_, applied) = shard.log.replaceBatches(replacements)
      val committed = applied.map(_.batch.id).toSet
      outputs.filterNot(o => committed(o.batchId)).foreach(_.deleteParts())
      if (applied.size < replacements.size) {
        log.info(s"Shard '${shard.name}': ${replacements.size - applied.size} compacted groups lost the race to " +
          "another compaction, or to a schema change; their parts were deleted")
      }
      val kept = groups.zip(replacements).filter { case (_, r) => committed(r.batch.id) }
      Totals(applied.size, replacements.size - applied.size, kept.map(_._1.rows).sum,
        kept.map(_._2.batch.rowCount).sum, kept.map(_._1.bytes).sum, kept.map(_._2.batch.bytes).sum)
    } catch {
      case NonFatal(e) =>
        outputs.foreach { o =>
          try o.abort() catch { case NonFatal(cleanup) => e.addSuppressed(cleanup) }
        }
        throw e
    }
  }
}
