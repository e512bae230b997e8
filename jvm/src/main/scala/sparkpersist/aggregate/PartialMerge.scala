package sparkpersist.aggregate

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types.DataType

/**
 * Merges, on the driver, the partial rows that statistics answer ([[StatsAggregates.partial]]):
 * one row per distinct value of the grouping columns (exactly one when there are none), counts
 * summed, the least of the `min`s and the greatest of the `max`es, nulls (parts whose values are
 * all null) left out as Spark's `min` and `max` leave them out.
 *
 * @param groups     the number of grouping columns leading each row
 * @param aggregates each aggregate and the type of its value
 */
final class PartialMerge(groups: Int, aggregates: Seq[(StatsAggregate, DataType)]) {
  import StatsAggregate._

  private val orderings = aggregates.map { case (_, dt) => TypeUtils.getInterpretedOrdering(dt) }

  def apply(rows: Iterator[InternalRow]): Seq[InternalRow] = {
    val byGroup = mutable.LinkedHashMap.empty[Seq[Any], Array[Any]]
    if (groups == 0) byGroup(Nil) = initial
    rows.foreach { row =>
      val key = (0 until groups).map(i => row.get(i, null))
      val acc = byGroup.getOrElseUpdate(key, initial)
      aggregates.indices.foreach { i =>
        val v = row.get(groups + i, aggregates(i)._2)
        acc(i) = aggregates(i)._1 match {
          case CountRows | CountValues(_) => acc(i).asInstanceOf[Long] + v.asInstanceOf[Long]
          case MinOf(_) => if (v == null || (acc(i) != null && orderings(i).lteq(acc(i), v))) acc(i) else v
          case MaxOf(_) => if (v == null || (acc(i) != null && orderings(i).gteq(acc(i), v))) acc(i) else v
        }
      }
    }
    byGroup.iterator.map { case (key, acc) => new GenericInternalRow((key ++ acc).toArray): InternalRow }.toSeq
  }

  /** What no part contributes: counts 0, no `min` or `max`. */
  private def initial: Array[Any] = aggregates.map {
    case (CountRows | CountValues(_), _) => 0L: Any
    case _ => null
  }.toArray
}
