package sparkpersist.source

import java.util.OptionalLong

import org.apache.spark.sql.connector.read.Statistics
import org.apache.spark.sql.types.StructType

import sparkpersist.shard.PartMeta

/**
 * What a persist scan tells Spark's planner about itself (`SupportsReportStatistics`), from the
 * shard's state, after pruning: so a small shard is broadcast under
 * `spark.sql.autoBroadcastJoinThreshold` instead of shuffled, and the cost-based optimizer sees
 * row counts.
 *
 *  - `sizeInBytes`: the bytes of the parts the scan reads, scaled by the share of the columns it
 *    reads (by their default sizes), as Spark's own file scans estimate it;
 *  - `numRows`: exact where the state knows it: every part read holds inserts only and is wholly
 *    visible as of the scan's as-of (then the rows read are the parts' row counts); otherwise absent
 *    (consolidation may cancel rows, and a part may hold updates after the as-of).
 */
private[source] object ScanStatistics {

  def of(parts: Seq[PartMeta], asOf: Option[Long], dataSchema: StructType, readSchema: StructType): Statistics = {
    val bytes = parts.iterator.map(_.bytes).sum
    val share = if (dataSchema.isEmpty) 1.0 else math.min(1.0, readSchema.defaultSize.toDouble / dataSchema.defaultSize)
    val exact = asOf.exists(t => parts.forall(p => !p.hasRetractions && p.maxTime <= t))
    val rows = if (exact) OptionalLong.of(parts.iterator.map(_.rowCount).sum) else OptionalLong.empty()
    new Statistics {
      override def sizeInBytes(): OptionalLong = OptionalLong.of(math.max(1L, (bytes * share).toLong))
      override def numRows(): OptionalLong = rows
      override def toString: String = s"Statistics(sizeInBytes=${sizeInBytes()}, numRows=$rows)"
    }
  }
}
