package sparkpersist.source

import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * What the query asks of one persist scan, handed over by the pruning rule
 * ([[sparkpersist.catalyst.PrunePersistParts]]) through the table: the query's as-of (so every
 * scan of a query, and `mz_now()`, read the same time) and the filter directly above the scan,
 * whose part decision the scan makes when it is built. `None` fields fall back to the scan's
 * own as-of ([[AsOf.resolve]]) and to reading every part.
 */
final case class ScanRequest(asOf: Option[Long], condition: Option[Expression])

object ScanRequest {
  val Unset: ScanRequest = ScanRequest(None, None)
}
