package org.apache.spark.sql.sparkpersist

import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.connector.write.{RowLevelOperation, RowLevelOperationTable}

/**
 * The table Spark's row-level rewrite puts in the relation it reads a statement's target rows
 * from (`private[sql]`): its operation, and the same table with another operation, for the rule
 * that hands the operation's scan the filter above it.
 */
object RowLevelOperationTables {
  /** The operation of a row-level operation's table; `None` for any other table. */
  def operationOf(table: Table): Option[RowLevelOperation] = table match {
    case t: RowLevelOperationTable => Some(t.operation)
    case _ => None
  }

  /** `table` (a row-level operation's) with `operation` instead of its own. */
  def withOperation(table: Table, operation: RowLevelOperation): Table = table match {
    case t: RowLevelOperationTable => t.copy(operation = operation)
    case other => throw new IllegalArgumentException(s"not a row-level operation's table: ${other.name}")
  }
}
