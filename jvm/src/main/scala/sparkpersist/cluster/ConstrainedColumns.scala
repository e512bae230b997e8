package sparkpersist.cluster

import org.apache.spark.sql.catalyst.expressions.{Expression, If, IsNotNull, IsNull, Literal, Not, Or}

import sparkpersist.interpret.OrderedColumns

/**
 * The columns a filter constrains in a way a clustered layout can serve: those whose bounds the
 * interpreter reads to decide it ([[OrderedColumns]]: comparisons, `IN`, prefixes, through casts,
 * arithmetic, `date_trunc` and the other functions it knows to be monotone). A column read only
 * through a function whose result its order cannot decide — JSON extraction (`get_json_object`,
 * `from_json`), VARIANT functions, user-defined functions, hashes, `length` — is no evidence for
 * clustering by it ([[FilterWorkload]]): laying parts out by a JSON text orders them by the text,
 * not by the path the filter reads. Nor are the `IS NOT NULL` the optimizer infers for every
 * column a comparison reads, nor the null guard Spark wraps around a user-defined function's arguments.
 */
object ConstrainedColumns {
  def of(condition: Expression): Set[String] = OrderedColumns.of(condition.transformUp {
    case _: IsNotNull | Not(_: IsNull) => Literal.TrueLiteral
    case If(guard, _, e) if nullGuard(guard) => e
  }).map(_.name)

  /** `IsNull(a) OR IsNull(b) …`: how Spark guards a user-defined function against null arguments. */
  private def nullGuard(e: Expression): Boolean = e match {
    case Or(l, r) => nullGuard(l) && nullGuard(r)
    case _: IsNull => true
    case _ => false
  }
}
