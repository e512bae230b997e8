package sparkpersist.table

import org.apache.spark.sql.{Column, functions}
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.Assignment

import sparkpersist.errors.PersistErrors

/** The `SET` of an UPDATE or a MERGE clause: column names (nested ones dotted, SQL-quoted) to values. */
private[table] object Assignments {
  def apply(set: Map[String, Column], expression: Column => Expression): Seq[Assignment] = {
    if (set.isEmpty) throw PersistErrors.invalidOption("ShardTable.update", "name at least one column to set, with its new value.")
    set.toSeq.map { case (column, value) =>
      Assignment(UnresolvedAttribute.quotedString(column), expression(value))
    }
  }

  /** `set` with each value a SQL expression, parsed. */
  def parsed(set: Map[String, String]): Map[String, Column] = set.map { case (k, v) => k -> functions.expr(v) }
}
