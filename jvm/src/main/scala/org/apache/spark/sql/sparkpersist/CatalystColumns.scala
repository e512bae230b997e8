package org.apache.spark.sql.sparkpersist

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.classic.ExpressionUtils

/**
 * The one bridge sparkpersist needs into Spark's `private[sql]` API: a DataFrame column from a
 * Catalyst expression. The writer uses it to take a DataFrame's columns by their resolved
 * attributes (no name lookup through the session's resolver) and to apply Spark's own CHAR/VARCHAR
 * write-side check. Delta and Iceberg place the same kind of helper in a package like this one.
 */
object CatalystColumns {
  def column(expression: Expression): Column = ExpressionUtils.column(expression)

  /** The Catalyst expression of a DataFrame column in `spark` (unresolved until a plan resolves it), as `Column.expr` was. */
  def expression(spark: org.apache.spark.sql.SparkSession, column: Column): Expression =
    spark.asInstanceOf[org.apache.spark.sql.classic.SparkSession].expression(column)
}

/** A DataFrame of a logical plan (`Dataset.ofRows`, `private[sql]`), for commands that read and write shards. */
object DataFrames {
  def ofRows(spark: org.apache.spark.sql.SparkSession, plan: org.apache.spark.sql.catalyst.plans.logical.LogicalPlan): org.apache.spark.sql.DataFrame =
    org.apache.spark.sql.classic.Dataset.ofRows(spark.asInstanceOf[org.apache.spark.sql.classic.SparkSession], plan)

  /** The logical plan of a DataFrame (`Dataset.logicalPlan`, `private[sql]`), to build a statement over it. */
  def logicalPlan(df: org.apache.spark.sql.DataFrame): org.apache.spark.sql.catalyst.plans.logical.LogicalPlan =
    df.asInstanceOf[org.apache.spark.sql.classic.Dataset[_]].logicalPlan
}
