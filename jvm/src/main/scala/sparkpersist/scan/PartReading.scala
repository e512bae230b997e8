package sparkpersist.scan

import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.connector.read.InputPartition
import org.apache.spark.sql.internal.SQLConf

import sparkpersist.PersistConf
import sparkpersist.consolidate.{ConsolidationPlan, ConsolidationTask}
import sparkpersist.plan.{PartPacking, ReadMode, ScanPlan, TableView}
import sparkpersist.positional.DroppedPositions
import sparkpersist.read.PartFile
import sparkpersist.shard.PartMeta

/**
 * What a scan reads of its [[ScanPlan]]: the runs of the plan's candidates but those at the
 * positions `skipped`, the parts at the positions `verify` marked to be verified
 * ([[sparkpersist.plan.SoftCheck]]), those the filter proved true marked as such (soft mode
 * verifies them too), the metrics, and the tasks. Made from the plan's own decisions when the
 * scan is built, and again when runtime filters arrive (a reading that `narrows` another).
 */
private[scan] final class PartReading(spark: SparkSession, plan: ScanPlan, skipped: java.util.BitSet,
    verify: java.util.BitSet, runtimePruned: Long, narrows: Option[PartReading] = None) {
  import plan.{candidates, state}

  /** The runs of the parts read, each in run order. */
  val runs: IndexedSeq[IndexedSeq[PartMeta]] = {
    var at = 0
    plan.visible.map { run =>
      val from = at
      at += run.size
      val first = skipped.nextSetBit(from)
      if (first < 0 || first >= at) run
      else {
        val kept = Vector.newBuilder[PartMeta]
        (first - from until run.size).foreach(i => if (!skipped.get(from + i)) kept += run(i))
        run.take(first - from) ++ kept.result()
      }
    }.filter(_.nonEmpty)
  }

  lazy val parts: IndexedSeq[PartMeta] = runs.flatten

  /** The parts read only to verify that skipping them was sound (by identity: hashing parts is costly). */
  val verified: java.util.Set[PartMeta] = partsAt(verify)

  /** The parts read on which the plan's filter is proven true. */
  val proven: java.util.Set[PartMeta] = {
    val read = plan.decisions.provenTrue.clone().asInstanceOf[java.util.BitSet]
    read.andNot(skipped)
    partsAt(read)
  }

  val metrics: ScanMetrics = ScanMetrics(state.partCount, parts.size, state.parts.map(_.bytes).sum,
    parts.iterator.map(_.bytes).sum, partsPruned = plan.decisions.ruledOut.cardinality, pruningNanos = plan.decisions.nanos,
    segmentsSkipped = plan.selection.segments()._2, partsRuntimePruned = runtimePruned, partsProvenTrue = proven.size,
    partsFromStats = plan.answeredPositions.cardinality)

  private def partsAt(positions: java.util.BitSet): java.util.Set[PartMeta] = {
    val out = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap[PartMeta, java.lang.Boolean])
    positions.stream().forEach(i => out.add(candidates(i)))
    out
  }

  /**
   * How a consolidated snapshot splits between tasks (`None` in the other modes); a reading that
   * `narrows` another keeps its tasks and shares, over fewer parts (the reader factory, built for
   * the other, may cancel in memory: no task's retracting rows grow).
   */
  lazy val consolidation: Option[ConsolidationPlan] =
    if (plan.mode != ReadMode.ConsolidatedSnapshot) None
    else narrows.flatMap(_.consolidation) match {
      case Some(wider) =>
        val read = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap[PartMeta, java.lang.Boolean])
        parts.foreach(read.add)
        Some(wider.restrictedTo(read.contains))
      case None => Some(ConsolidationPlan(runs, state.schema, consolidationTasks))
    }

  /** Whether every consolidation task holds few enough retracting rows to cancel them in memory ([[Cancellation]]). */
  lazy val cancelsInMemory: Boolean = consolidation.forall(_.tasks.forall(PartReading.cancelsInMemory(spark, _)))

  /** The tasks of this reading, planned once: Spark asks again for each copy of the plan node. */
  lazy val inputPartitions: Array[InputPartition] = {
    def straight(files: Seq[PartFile]): Seq[InputPartition] =
      PartPacking.tasks(files, spark.sessionState.conf, leafParallelism).map(g => PartsPartition(IndexedSeq(g)))
    def partFile(part: PartMeta): PartFile =
      PartFile.of(plan.shard.partUri(part), part, verify = verified.contains(part), provenTrue = proven.contains(part),
        visibleAsOf = if (plan.view == TableView.Updates || part.minTime < plan.from) None else plan.asOf,
        dropped = plan.positional.fold(DroppedPositions.None)(_.droppedFrom(part)),
        insertsOnly = plan.positional.exists(_.insertsOnly(part.key)))
    consolidation match {
      case Some(tasks) =>
        (tasks.tasks.map(t => PartsPartition(t.runs.map(_.map(partFile)), Some(t.share),
          cancelInMemory = PartReading.cancelsInMemory(spark, t))) ++
          straight(tasks.straight.map(partFile))).toArray
      case None => straight(parts.map(partFile)).toArray
    }
  }

  /** [[PersistConf.ConsolidationTasks]], or when 0 the cluster's parallelism (more for large reads). */
  private def consolidationTasks: Int = {
    val conf = spark.sessionState.conf
    PersistConf.ConsolidationTasks.get(conf) match {
      case 0 =>
        val bySize = (parts.map(_.bytes).sum + conf.filesMaxPartitionBytes - 1) / conf.filesMaxPartitionBytes
        math.max(spark.sparkContext.defaultParallelism.toLong, bySize).toInt
      case n => math.min(n, Int.MaxValue).toInt
    }
  }

  /** The parallelism Spark's file scans split their files for (`SparkSession.leafNodeDefaultParallelism`). */
  private def leafParallelism: Int =
    Option(spark.sessionState.conf.getConfString(SQLConf.LEAF_NODE_DEFAULT_PARALLELISM.key, null))
      .map(_.toInt).getOrElse(spark.sparkContext.defaultParallelism)
}

private[scan] object PartReading {
  /** Whether `task` holds few enough retracting rows to cancel them in memory ([[PersistConf.CancelInMemoryRows]]). */
  def cancelsInMemory(spark: SparkSession, task: ConsolidationTask): Boolean = {
    val inMemory = PersistConf.CancelInMemoryRows.get(spark.sessionState.conf)
    inMemory > 0 && task.retractingRows <= inMemory
  }
}
