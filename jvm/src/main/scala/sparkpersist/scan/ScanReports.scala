package sparkpersist.scan

import java.util.Collections

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.SQLExecution
import org.apache.spark.util.LongAccumulator

import sparkpersist.plan.PushdownMode

/**
 * What one persist scan of an executed query read: its shard, as-of, pushdown mode, the parts
 * and bytes it could have read and read, how many parts the filter ruled out (and proved true), the time the
 * decision took, the keys of the parts read, and (soft mode) the violations found.
 * `softViolations` is read when asked: it is final once the query has returned.
 */
final case class ScanReport(
    shard: String,
    asOf: Option[Long],
    mode: PushdownMode,
    metrics: ScanMetrics,
    softViolations: Option[LongAccumulator],
    partKeysRead: Seq[String] = Nil,
    /** The keys of the parts read on which the filter is proven true (each row passes it). */
    partKeysProvenTrue: Seq[String] = Nil) {

  def toMap: Map[String, Any] = Map(
    "shard" -> shard,
    "as_of" -> asOf.orNull,
    "mode" -> mode.name,
    "parts_total" -> metrics.partsTotal,
    "parts_read" -> metrics.partsKept,
    "parts_pruned" -> metrics.partsPruned,
    "segments_skipped" -> metrics.segmentsSkipped,
    "parts_runtime_pruned" -> metrics.partsRuntimePruned,
    "parts_proven_true" -> metrics.partsProvenTrue,
    "parts_from_stats" -> metrics.partsFromStats,
    "bytes_total" -> metrics.bytesTotal,
    "bytes_read" -> metrics.bytesKept,
    "pruning_ms" -> metrics.pruningNanos / 1e6,
    "soft_violations" -> softViolations.map(_.sum).getOrElse(0L),
    "part_keys_read" -> partKeysRead,
    "part_keys_proven_true" -> partKeysProvenTrue)
}

/**
 * The reports of the persist scans of each session's latest query execution (what
 * `sparkpersist.last_scans(spark)` returns). A scan records itself when it is executed.
 */
object ScanReports {
  private final case class Latest(executionId: String, reports: Vector[(AnyRef, ScanReport)])

  private val bySession = Collections.synchronizedMap(new java.util.WeakHashMap[SparkSession, Latest]())

  /**
   * Records `report` for `scan` (its latest, once per scan) under the running execution of `spark`. A scan
   * planned outside any execution (its plan forced before the action) starts a group of its own,
   * so it never joins an older query's scans.
   */
  def record(spark: SparkSession, scan: AnyRef, report: ScanReport): Unit = {
    val executionId = Option(spark.sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY))
    bySession.synchronized {
      val latest = Option(bySession.get(spark)).filter(l => executionId.contains(l.executionId))
        .getOrElse(Latest(executionId.getOrElse(""), Vector.empty))
      // A scan planned again (after its runtime filters) replaces its report in place.
      val at = latest.reports.indexWhere(_._1 eq scan)
      val reports = if (at < 0) latest.reports :+ (scan -> report) else latest.reports.updated(at, scan -> report)
      bySession.put(spark, latest.copy(reports = reports))
    }
  }

  /** The scans of the latest execution in `spark` that read a persist shard, in planning order. */
  def last(spark: SparkSession): Seq[ScanReport] =
    Option(bySession.get(spark)).map(_.reports.map(_._2)).getOrElse(Vector.empty)
}
