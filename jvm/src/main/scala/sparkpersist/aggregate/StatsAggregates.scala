package sparkpersist.aggregate

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.stats.{ColumnStats, PartStats}

/** An aggregate a part's statistics answer exactly, when the part's rows all count. */
sealed trait StatsAggregate

object StatsAggregate {
  /** `count(*)`: the part's rows. */
  case object CountRows extends StatsAggregate
  /** `count(column)`: its non-null values. */
  final case class CountValues(columnId: Int) extends StatsAggregate
  /** `min(column)`: its lower bound (null when every value is null). */
  final case class MinOf(columnId: Int) extends StatsAggregate
  /** `max(column)`: its upper bound (null when every value is null). */
  final case class MaxOf(columnId: Int) extends StatsAggregate

  /**
   * Types whose bounds are the exact least and greatest values: integers, dates and timestamps
   * (not floating point, where Spark orders NaN and tells -0.0 from 0.0 in ways bounds do not
   * keep, nor strings and binary, whose bounds may be truncated prefixes).
   */
  def exactBounds(dataType: DataType): Boolean = dataType match {
    case ByteType | ShortType | IntegerType | LongType | DateType | TimestampType | TimestampNTZType => true
    case _ => false
  }

  /**
   * Types whose value a part's stats give exactly when it is constant in the part (lower equal
   * to upper): those of [[exactBounds]], booleans and strings of the binary collation (a
   * truncated string's bounds differ).
   */
  def exactConstant(dataType: DataType): Boolean = dataType match {
    case BooleanType => true
    case s: StringType => s.collationId == StringType.collationId
    case other => exactBounds(other)
  }
}

/**
 * What the statistics of one part answer: the values of the grouping columns (each constant in
 * the part) and of each [[StatsAggregate]], as one partial row, or nothing when they cannot
 * answer exactly. The caller vouches that every row of the part counts: the filter is proven true
 * on it, every update is an insert visible at the read's as-of, and no other part retracts one.
 */
object StatsAggregates {
  import StatsAggregate._

  /**
   * The partial row of a part with `stats`: the grouping columns' values (`groups`: column id and
   * type), then each aggregate's (`count`s as longs, `min`/`max` of `types` by column id).
   * `dropped` rows of the part (by position) do not count: then only `count(*)` is answered (the
   * statistics do not tell which values those rows held), and grouping columns constant in the part.
   */
  def partial(stats: PartStats, groups: Seq[(Int, DataType)], aggregates: Seq[StatsAggregate],
      types: Map[Int, DataType], dropped: Long = 0): Option[InternalRow] = {
    def exact(id: Int): Option[ColumnStats] =
      if (stats.trimmed.contains(id)) None else stats.columns.get(id).filter(c => c.nullCount <= stats.rowCount)
    def bound(id: Int, b: ColumnStats => Option[Any]): Option[Any] = exact(id).flatMap { c =>
      if (c.nullCount == stats.rowCount) Some(null)
      else b(c).filter(v => valueOf(types(id), v))
    }
    val groupValues = groups.map { case (id, dt) =>
      exact(id).flatMap { c =>
        if (c.nullCount == stats.rowCount) Some(null)
        else if (c.nullCount > 0) None
        else for (lo <- c.lower if valueOf(dt, lo); hi <- c.upper if lo == hi) yield lo
      }
    }
    val values = aggregates.map {
      case CountRows => Some(stats.rowCount - dropped)
      case _ if dropped > 0 => None
      case CountValues(id) => exact(id).map(c => stats.rowCount - c.nullCount)
      case MinOf(id) => bound(id, _.lower)
      case MaxOf(id) => bound(id, _.upper)
    }
    val all = groupValues ++ values
    if (all.forall(_.isDefined)) Some(new GenericInternalRow(all.map(_.get).toArray)) else None
  }

  /** Whether `v` is a Catalyst value of `dataType`, as the stats hold them. */
  private def valueOf(dataType: DataType, v: Any): Boolean = (dataType, v) match {
    case (ByteType, _: Byte) | (ShortType, _: Short) | (IntegerType, _: Int) | (LongType, _: Long) |
         (DateType, _: Int) | (TimestampType, _: Long) | (TimestampNTZType, _: Long) | (BooleanType, _: Boolean) => true
    case (_: StringType, _: UTF8String) => true
    case _ => false
  }
}
