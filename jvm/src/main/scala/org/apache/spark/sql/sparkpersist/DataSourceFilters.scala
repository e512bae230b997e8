package org.apache.spark.sql.sparkpersist

import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.internal.connector.PredicateUtils
import org.apache.spark.sql.sources.Filter

/**
 * The read path's bridge into Spark's `private[sql]` API: a pushed data source V2 predicate as
 * the V1 filter Spark's Parquet filter conversion (`ParquetFilters`) takes, as Spark's own file
 * scans convert them.
 */
object DataSourceFilters {
  def toV1(predicate: Predicate): Option[Filter] = PredicateUtils.toV1(predicate)
}
