package sparkpersist.source

import org.apache.spark.sql.catalyst.expressions.Expression

import sparkpersist.shard.PartMeta

/**
 * Which parts a scan reads, decided on the driver when the scan is built. `condition` is the
 * query's filter the decision was derived from (for EXPLAIN); `keep` must return true for every
 * part that may hold a row passing it (or raising an error while evaluating it).
 */
final case class PartSelection(condition: Option[Expression], keep: PartMeta => Boolean) {
  def describe: String = condition.map(c => s"parts kept by ${c.sql}").getOrElse("all parts")
}

object PartSelection {
  /** Read every part (no filter). */
  val All: PartSelection = PartSelection(None, _ => true)
}
