package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions.{LeafExpression, Unevaluable}
import org.apache.spark.sql.types.{DataType, TimestampType}

/**
 * `mz_now()`: the logical time a query reads as of (the persist as-of), as a timestamp.
 *
 * It is fixed for the whole query, so it is deterministic, but not foldable: the pruning rule
 * interprets it as a point (batch reads) or the range `[asOf, +inf)` (continuous reads), then
 * substitutes the as-of literal before execution. Evaluating it unsubstituted is an error.
 */
case class MzNow() extends LeafExpression with Unevaluable {
  override def dataType: DataType = TimestampType
  override def nullable: Boolean = false
  override def prettyName: String = "mz_now"
  override def sql: String = "mz_now()"
  override def toString: String = "mz_now()"
}
