package sparkpersist.read

import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.DataType

import sparkpersist.util.SqlSettings

/**
 * The values of the filters handed to Parquet inside parts, exactly as Spark compares them. A data
 * source filter carries each value as a Scala value, which Parquet's filter conversion
 * (`ParquetFilters`) encodes as the column stores it; Spark's conversion of a Catalyst value to a
 * Scala value must not change it on the way, or Parquet skips row groups holding rows that pass:
 *  - dates and timestamps become `java.time` values (as with `spark.sql.datetime.java8API.enabled`),
 *    not `java.sql.Date` and `java.sql.Timestamp`, which pass through the hybrid Julian calendar:
 *    it lacks the days 1582-10-05 to 1582-10-14, so `TIMESTAMP'1582-10-10 00:00:00'` came back
 *    days later, and earlier times could shift with the JVM's zone;
 *  - a value whose Scala value is not the value itself has no filter: a string of invalid UTF-8
 *    (no Java string holds its bytes: they become U+FFFD, and `s = X'FF41'` would reach Parquet as
 *    `s = '\uFFFDA'`).
 */
object ParquetLiterals {

  /**
   * `value`, a Catalyst value of `dataType` (or null), as the Scala value of a filter Parquet reads
   * as `value` itself; `None` if it has none.
   */
  def toScala(value: Any, dataType: DataType): Option[Any] = converting {
    val scala = CatalystTypeConverters.convertToScala(value, dataType)
    if (same(CatalystTypeConverters.convertToCatalyst(scala), value)) Some(scala) else None
  }

  /**
   * Runs `body`, which converts Catalyst values to Scala values with Spark's converters (Spark's
   * conversion of pushed predicates to data source filters does), dates and timestamps to `java.time`.
   */
  def converting[T](body: => T): T = SqlSettings.withSettings(Map(SQLConf.DATETIME_JAVA8API_ENABLED.key -> "true"))(body)

  private def same(a: Any, b: Any): Boolean = (a, b) match {
    case (x: Array[Byte], y: Array[Byte]) => java.util.Arrays.equals(x, y)
    case _ => java.util.Objects.equals(a, b)
  }
}
