package sparkpersist.compact

import org.apache.spark.sql.internal.SQLConf

import sparkpersist.PersistConf
import sparkpersist.codec.Check

/**
 * How a compaction plans (see [[CompactionPlanner]]) and how far it moves since.
 *
 * @param fanIn       adjacent batches of one size tier merged into one
 * @param targetBytes a batch this large is complete: never rewritten, never exceeded by packing
 * @param windowMs    the time-span limit: only batches within one aligned window are merged
 * @param retentionMs update-time history kept readable below the upper; None: since stays
 */
final case class CompactionSettings(fanIn: Int, targetBytes: Long, windowMs: Long, retentionMs: Option[Long]) {
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
    retentionMs = PersistConf.RetentionMs.get(conf))
}
