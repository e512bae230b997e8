package sparkpersist.read

import org.apache.spark.sql.connector.expressions.{Expression => V2Expression, Literal => V2Literal}
import org.apache.spark.sql.connector.expressions.filter.{Predicate, And => V2And, Not => V2Not, Or => V2Or}
import org.apache.spark.sql.sources
import org.apache.spark.sql.sparkpersist.DataSourceFilters
import org.apache.spark.sql.types._

import sparkpersist.schema.ShardSchema

/**
 * The filters a scan hands to the Parquet reader inside each part, for row-group (and
 * page-index) skipping. A scan accepts the pushed predicates Spark can state as data source
 * filters (`col op literal`, `IN`, `IS [NOT] NULL`, string prefix/suffix/contains, and `AND`,
 * `OR`, `NOT` of those) over top-level data columns, and keeps every predicate as a post-scan
 * filter too: Parquet only skips row groups that cannot hold a passing row, Spark re-checks
 * every row. Parts read only to be verified in soft mode get no filter (every row must reach
 * the check).
 */
object PartFilters {

  /**
   * The data source filter `predicate` states, if it can reach Parquet for `schema`: over
   * top-level columns whose values Parquet's statistics and dictionaries order and compare as
   * Spark does. Not floating-point columns: Spark equates -0.0 with 0.0 and puts NaN above every
   * number, while Parquet tells the zeros apart (a dictionary of 0.0 does not hold -0.0, so
   * `x IN (-0.0)` would skip a row group of zeros that pass) and leaves NaN out of its bounds.
   * Not strings of a non-binary collation either (Parquet compares bytes). Its literals reach
   * Parquet as Spark compares them, or it has no filter ([[ParquetLiterals]]).
   */
  def toParquet(predicate: Predicate, schema: ShardSchema): Option[sources.Filter] =
    if (!printable(predicate)) None
    else ParquetLiterals.converting(toV1(predicate)).filter(_.references.forall(name =>
      schema.column(name).exists(c => c.name == name && comparesAsParquet(c.dataType))))

  /**
   * `predicate` as a data source filter that states all of it, or nothing. `AND`, `OR` and `NOT`
   * are converted here, each only when every operand is: Spark 4.1's own conversion turns
   * `f(x) = 1 OR id = 4` into `id = 4` when `f(x) = 1` has no data source filter, and Parquet
   * then skips the row groups where only `f(x) = 1` holds, losing their rows.
   */
  private def toV1(predicate: Predicate): Option[sources.Filter] = predicate match {
    case and: V2And => for (l <- toV1(and.left()); r <- toV1(and.right())) yield sources.And(l, r)
    case or: V2Or => for (l <- toV1(or.left()); r <- toV1(or.right())) yield sources.Or(l, r)
    case not: V2Not => toV1(not.child()).map(sources.Not)
    case leaf =>
      try {
        if (!leaf.children().forall(exact)) None
        else DataSourceFilters.toV1(leaf).filter(f => !f.isInstanceOf[sources.And] && !f.isInstanceOf[sources.Or] &&
          !f.isInstanceOf[sources.Not])
      } catch { case scala.util.control.NonFatal(_) => None }
  }

  /** Whether `operand`, if a literal, reaches Parquet as Spark compares it ([[ParquetLiterals]]). */
  private def exact(operand: V2Expression): Boolean = operand match {
    case l: V2Literal[_] => ParquetLiterals.toScala(l.value(), l.dataType()).isDefined
    case _ => true
  }

  /**
   * Whether Spark can print `predicate`, as it does every predicate a scan accepts (its pushdown
   * logs them): Spark 4.1's `LiteralValue.toString` fails an assertion on a BINARY null
   * (`bin IN (X'01', NULL)`), which fails the whole query. Such a predicate stays a post-scan
   * filter only.
   */
  private def printable(predicate: V2Expression): Boolean =
    predicate match {
      case l: V2Literal[_] => !(l.dataType() == BinaryType && l.value() == null)
      case other => other.children().forall(printable)
    }

  private def comparesAsParquet(dataType: DataType): Boolean = dataType match {
    case FloatType | DoubleType => false
    case s: StringType => s.collationId == StringType.collationId
    case _ => true
  }
}
