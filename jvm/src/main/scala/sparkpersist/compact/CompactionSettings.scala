package sparkpersist.compact

import org.apache.spark.sql.internal.SQLConf

import sparkpersist.PersistConf
import sparkpersist.cluster.LayoutKind
import sparkpersist.codec.Check
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.BatchMeta

/**
 * How a compaction plans (see [[CompactionPlanner]]) and how far it moves since.
 *
 * @param fanIn       adjacent batches of one size tier merged into one
 * @param targetBytes a batch this large is complete: never rewritten, never exceeded by packing
 * @param windowMs    the time-span limit: only batches within one aligned window are merged
 * @param retentionMs update-time history kept readable below the upper; None: since stays
 * @param cluster     how a shard with clustering columns is laid out
 * @param mergeAged   whether small sealed windows merge into longer spans as they age ([[AgedSpans]])
 */
final case class CompactionSettings(fanIn: Int, targetBytes: Long, windowMs: Long, retentionMs: Option[Long],
    cluster: ClusterSettings = ClusterSettings(), mergeAged: Boolean = PersistConf.CompactMergeAged.default) {
  Check.arg(fanIn >= 2, s"fanIn must be at least 2, got $fanIn")
  Check.arg(targetBytes >= 1, s"targetBytes must be positive, got $targetBytes")
  Check.arg(windowMs >= 1, s"windowMs must be positive, got $windowMs")
  retentionMs.foreach(r => Check.arg(r >= 0, s"retentionMs must not be negative, got $r"))
}

object CompactionSettings {
  /** The session's settings (`spark.sparkpersist.compact.*`, `spark.sparkpersist.retentionMs`). */
  def of(conf: SQLConf): CompactionSettings = CompactionSettings(
    fanIn = math.min(PersistConf.CompactFanIn.get(conf), Int.MaxValue.toLong).toInt,
    targetBytes = PersistConf.CompactTargetBytes.get(conf),
    windowMs = PersistConf.CompactWindowMs.get(conf),
    retentionMs = PersistConf.RetentionMs.get(conf),
    cluster = ClusterSettings(PersistConf.ClusterPartBytes.get(conf), LayoutKind.named(PersistConf.ClusterCurve.get(conf)),
      workloadMs = PersistConf.ClusterWorkloadMs.get(conf)),
    mergeAged = PersistConf.CompactMergeAged.get(conf))
}

/**
 * How compaction clusters a shard with clustering columns ([[sparkpersist.cluster]]).
 *
 * @param partBytes       about how large each part of a clustered batch is
 * @param layout          how rows are laid out: along a space-filling curve, or in a grid of slices
 * @param reclusterBefore when set (an explicit request: `CALL ... compact(..., cluster => true)`), batches
 *                        committed before this time (ms) are laid out again even if clustered by the current
 *                        columns, those of the open window too; otherwise only sealed windows are laid out
 * @param workloadMs      for a shard clustered `auto`: the age of the workload evidence it chooses from
 * @param chosen          for a shard clustered `auto`: the columns chosen from its workload
 *                        ([[sparkpersist.cluster.AutoClustering]])
 */
final case class ClusterSettings(partBytes: Long = PersistConf.ClusterPartBytes.default,
    layout: LayoutKind = LayoutKind.named(PersistConf.ClusterCurve.default), reclusterBefore: Option[Long] = None,
    workloadMs: Long = PersistConf.ClusterWorkloadMs.default, chosen: IndexedSeq[Int] = IndexedSeq.empty) {
  Check.arg(partBytes >= 1, s"cluster partBytes must be positive, got $partBytes")

  /** The columns a compaction of a shard of `schema` clusters by (none: it does not cluster). */
  def columns(schema: ShardSchema): IndexedSeq[Int] = if (schema.clusterAuto) chosen else schema.clusteredIds

  /**
   * Whether `batch` is laid out as these settings would lay it out. With named columns: along
   * them. With `auto`: along any columns, so that a changing choice never lays a window out twice.
   */
  def done(batch: BatchMeta, schema: ShardSchema): Boolean =
    (if (schema.clusterAuto) batch.clusteredBy.nonEmpty else batch.clusteredBy == schema.clusteredIds) &&
      reclusterBefore.forall(batch.committedAtMs >= _)
}
