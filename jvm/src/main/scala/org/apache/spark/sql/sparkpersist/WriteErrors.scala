package org.apache.spark.sql.sparkpersist

import org.apache.spark.SparkRuntimeException
import org.apache.spark.sql.errors.QueryExecutionErrors

/**
 * Spark's own error for a null where a table's column says NOT NULL (`NOT_NULL_ASSERT_VIOLATION`,
 * as `INSERT` raises it through `AssertNotNull`), for the writers that check rows themselves.
 */
object WriteErrors {
  /** The error for a null at `path` (a column, then fields, `element`, `key` or `value`), worded as `AssertNotNull` words it. */
  def nullInNotNull(path: Seq[String]): SparkRuntimeException =
    QueryExecutionErrors.notNullAssertViolation(path.mkString("\n", "\n", "\n"))
}
