package sparkpersist.cluster

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, GetJsonObject, If, IsNotNull, IsNull, JsonToStructs, JsonTuple, Not, Or, UserDefinedExpression}
import org.apache.spark.sql.catalyst.expressions.objects.{Invoke, StaticInvoke}

/**
 * The columns a filter constrains in a way a clustered layout can serve: those it reads other
 * than only through a function that hides the column's order — JSON extraction
 * (`get_json_object`, `json_tuple`, `from_json`), VARIANT functions (which Spark plans as object
 * invocations) and user-defined functions. Laying parts out by a JSON text column orders them
 * by the text, not by the path the filter reads, so such a column is no evidence for clustering
 * by it ([[FilterWorkload]]). Nor are the `IS NOT NULL` the optimizer infers for every column a
 * comparison reads, nor the null guard Spark wraps around a user-defined function's arguments.
 */
object ConstrainedColumns {
  def of(condition: Expression): Set[String] = condition match {
    case a: Attribute => Set(a.name)
    case _: IsNotNull | Not(_: IsNull) => Set.empty
    case If(guard, whenNull, e) if nullGuard(guard) => of(whenNull) ++ of(e)
    case _: GetJsonObject | _: JsonTuple | _: JsonToStructs | _: UserDefinedExpression | _: Invoke | _: StaticInvoke => Set.empty
    case e if e.getClass.getPackage.getName.endsWith(".variant") => Set.empty
    case e => e.children.flatMap(of).toSet
  }

  /** `IsNull(a) OR IsNull(b) …`: how Spark guards a user-defined function against null arguments. */
  private def nullGuard(e: Expression): Boolean = e match {
    case Or(l, r) => nullGuard(l) && nullGuard(r)
    case _: IsNull => true
    case _ => false
  }
}
