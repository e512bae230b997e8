package sparkpersist.source

import org.apache.spark.sql.connector.metric.{CustomMetric, CustomSumMetric, CustomTaskMetric}

import sparkpersist.shard.PartMeta

/**
 * How many parts and bytes a persist scan could have read and how many it reads. Reported as
 * driver metrics of the scan (SQL UI) and kept on the scan for programmatic access.
 */
final case class ScanMetrics(partsTotal: Long, partsKept: Long, bytesTotal: Long, bytesKept: Long) {
  def partsSkipped: Long = partsTotal - partsKept
  def bytesSkipped: Long = bytesTotal - bytesKept

  def taskMetrics: Array[CustomTaskMetric] = Array(
    ScanMetrics.value(ScanMetrics.PartsTotal, partsTotal),
    ScanMetrics.value(ScanMetrics.PartsKept, partsKept),
    ScanMetrics.value(ScanMetrics.BytesTotal, bytesTotal),
    ScanMetrics.value(ScanMetrics.BytesKept, bytesKept))
}

object ScanMetrics {
  val PartsTotal = "persistPartsTotal"
  val PartsKept = "persistPartsRead"
  val BytesTotal = "persistBytesTotal"
  val BytesKept = "persistBytesRead"

  def of(total: Seq[PartMeta], kept: Seq[PartMeta]): ScanMetrics =
    ScanMetrics(total.size, kept.size, total.map(_.bytes).sum, kept.map(_.bytes).sum)

  /** The metrics a persist scan declares to Spark. */
  def supported: Array[CustomMetric] = Array(
    new PartsTotalMetric, new PartsReadMetric, new BytesTotalMetric, new BytesReadMetric)

  private def value(metric: String, v: Long): CustomTaskMetric = new CustomTaskMetric {
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
