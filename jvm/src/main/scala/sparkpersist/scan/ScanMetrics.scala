package sparkpersist.scan

import org.apache.spark.sql.connector.metric.{CustomMetric, CustomSumMetric, CustomTaskMetric}

import sparkpersist.plan.SoftCheck
import sparkpersist.read.PartReadStats

/**
 * What a persist scan could have read and what it reads: parts and bytes in the shard and read,
 * parts the filter ruled out (in soft mode they are read anyway, to be verified), the parts the
 * runtime filters of a join ruled out on top of those ([[RuntimeFiltering]]), the parts read on
 * which the filter is proven true (every row passes it, none raises), and the time
 * the part decision took. Reported as driver metrics of the scan (SQL UI), kept on the scan for
 * EXPLAIN and [[ScanReports]]. Task metrics: soft-mode violations ([[ScanMetrics.SoftViolations]]),
 * and the row groups of the parts opened and read once Parquet applied the scan's filters.
 */
final case class ScanMetrics(
    partsTotal: Long,
    partsKept: Long,
    bytesTotal: Long,
    bytesKept: Long,
    partsPruned: Long = 0,
    pruningNanos: Long = 0,
    /** Segments of parts the filter ruled out whole, on their summaries ([[SegmentSkipping]]). */
    segmentsSkipped: Long = 0,
    /** Parts the runtime filters ruled out besides ([[RuntimeFiltering]]). */
    partsRuntimePruned: Long = 0,
    /** Parts read on which the scan's filter is proven true ([[sparkpersist.interpret.PartFilter.decide]]). */
    partsProvenTrue: Long = 0,
    /** Parts whose share of the query (an aggregate) was answered from their statistics, not read. */
    partsFromStats: Long = 0) {
  def partsSkipped: Long = partsTotal - partsKept
  def bytesSkipped: Long = bytesTotal - bytesKept

  def taskMetrics: Array[CustomTaskMetric] = Array(
    ScanMetrics.value(ScanMetrics.PartsTotal, partsTotal),
    ScanMetrics.value(ScanMetrics.PartsKept, partsKept),
    ScanMetrics.value(ScanMetrics.BytesTotal, bytesTotal),
    ScanMetrics.value(ScanMetrics.BytesKept, bytesKept),
    ScanMetrics.value(ScanMetrics.PartsPruned, partsPruned),
    ScanMetrics.value(ScanMetrics.PruningMicros, pruningNanos / 1000),
    ScanMetrics.value(ScanMetrics.SegmentsSkipped, segmentsSkipped),
    ScanMetrics.value(ScanMetrics.PartsRuntimePruned, partsRuntimePruned),
    ScanMetrics.value(ScanMetrics.PartsProvenTrue, partsProvenTrue),
    ScanMetrics.value(ScanMetrics.PartsFromStats, partsFromStats))
}

object ScanMetrics {
  val PartsTotal = "persistPartsTotal"
  val PartsKept = "persistPartsRead"
  val BytesTotal = "persistBytesTotal"
  val BytesKept = "persistBytesRead"
  val PartsPruned = "persistPartsPruned"
  val PruningMicros = "persistPruningMicros"
  val SegmentsSkipped = "persistSegmentsSkipped"
  val PartsRuntimePruned = "persistPartsRuntimePruned"
  val PartsProvenTrue = "persistPartsProvenTrue"
  val PartsFromStats = "persistPartsFromStats"
  val SoftViolations = "persistSoftViolations"
  val RowGroupsTotal = "persistRowGroupsTotal"
  val RowGroupsRead = "persistRowGroupsRead"

  /** The metrics a persist scan declares to Spark. */
  def supported: Array[CustomMetric] = Array(
    new PartsTotalMetric, new PartsReadMetric, new BytesTotalMetric, new BytesReadMetric,
    new PartsPrunedMetric, new SegmentsSkippedMetric, new PartsRuntimePrunedMetric, new PartsProvenTrueMetric, new PartsFromStatsMetric, new PruningTimeMetric, new SoftViolationsMetric, new RowGroupsTotalMetric,
    new RowGroupsReadMetric)

  /** A task's metrics: the row groups in the parts it opened and read, its soft-mode violations. */
  private[scan] def taskValues(stats: PartReadStats, check: Option[SoftCheck#Run]): Array[CustomTaskMetric] =
    Array(value(RowGroupsTotal, stats.rowGroups), value(RowGroupsRead, stats.rowGroupsRead)) ++
      check.map(c => value(SoftViolations, c.violationCount))

  private[scan] def value(metric: String, v: Long): CustomTaskMetric = new CustomTaskMetric {
    override def name(): String = metric
    override def value(): Long = v
  }
}

/** A summed driver metric of persist scans. */
abstract class PersistSumMetric(metricName: String, metricDescription: String) extends CustomSumMetric {
  override def name(): String = metricName
  override def description(): String = metricDescription
}

// Spark instantiates metric classes by reflection: each needs a public no-argument constructor.
class PartsTotalMetric extends PersistSumMetric(ScanMetrics.PartsTotal, "persist parts in the shard")
class PartsReadMetric extends PersistSumMetric(ScanMetrics.PartsKept, "persist parts read")
class BytesTotalMetric extends PersistSumMetric(ScanMetrics.BytesTotal, "persist bytes in the shard")
class BytesReadMetric extends PersistSumMetric(ScanMetrics.BytesKept, "persist bytes read")
class PartsPrunedMetric extends PersistSumMetric(ScanMetrics.PartsPruned, "persist parts pruned by the filter")
class PartsRuntimePrunedMetric extends PersistSumMetric(ScanMetrics.PartsRuntimePruned,
  "persist parts pruned by runtime filters")
class PartsProvenTrueMetric extends PersistSumMetric(ScanMetrics.PartsProvenTrue,
  "persist parts read on which the filter is proven true")
class PartsFromStatsMetric extends PersistSumMetric(ScanMetrics.PartsFromStats,
  "persist parts answered from their statistics")
class SegmentsSkippedMetric extends PersistSumMetric(ScanMetrics.SegmentsSkipped,
  "persist segments of parts skipped on their summaries")
class PruningTimeMetric extends PersistSumMetric(ScanMetrics.PruningMicros, "persist pruning time (µs)")
class SoftViolationsMetric extends PersistSumMetric(ScanMetrics.SoftViolations, "persist soft pushdown violations")
class RowGroupsTotalMetric extends PersistSumMetric(ScanMetrics.RowGroupsTotal, "persist row groups in parts opened")
class RowGroupsReadMetric extends PersistSumMetric(ScanMetrics.RowGroupsRead, "persist row groups read (after Parquet filters)")
