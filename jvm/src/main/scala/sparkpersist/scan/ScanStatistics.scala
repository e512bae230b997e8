package sparkpersist.scan

import java.util.{Optional, OptionalLong}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.connector.read.Statistics
import org.apache.spark.sql.connector.read.colstats.ColumnStatistics
import org.apache.spark.sql.types._

import sparkpersist.shard.PartMeta

/**
 * What a persist scan tells Spark's planner about itself (`SupportsReportStatistics`), from the
 * shard's state, after pruning: so a small shard is broadcast under
 * `spark.sql.autoBroadcastJoinThreshold` instead of shuffled, and the cost-based optimizer sees
 * row counts.
 *
 *  - `sizeInBytes`: the bytes of the parts the scan reads, scaled by the share of the columns it
 *    reads (by their default sizes), as Spark's own file scans estimate it;
 *  - `numRows`: exact where the state knows it: every part read holds inserts only and is wholly
 *    visible as of the scan's as-of (then the rows read are the parts' row counts); otherwise absent
 *    (consolidation may cancel rows, and a part may hold updates after the as-of);
 *  - column statistics, where the row count is exact and every part read has untrimmed statistics
 *    of the column: its null count, and for integral, date and timestamp columns its minimum and
 *    maximum (exact there: the stats keep those bounds untruncated, in Spark's internal type).
 */
private[scan] object ScanStatistics {

  def of(parts: Seq[PartMeta], asOf: Option[Long], dataSchema: StructType, readSchema: StructType,
      columnIds: String => Option[Int]): Statistics = {
    val bytes = parts.iterator.map(_.bytes).sum
    val share = if (dataSchema.isEmpty) 1.0 else math.min(1.0, readSchema.defaultSize.toDouble / dataSchema.defaultSize)
    val exact = asOf.exists(t => parts.forall(p => !p.hasRetractions && p.maxTime <= t))
    val rows = if (exact) OptionalLong.of(parts.iterator.map(_.rowCount).sum) else OptionalLong.empty()
    val columns = if (!exact) Map.empty[NamedReference, ColumnStatistics] else readSchema.fields.flatMap { f =>
      columnIds(f.name).flatMap(id => column(parts, id, f.dataType)).map(Expressions.column(f.name) -> _)
    }.toMap
    new Statistics {
      override def sizeInBytes(): OptionalLong = OptionalLong.of(math.max(1L, (bytes * share).toLong))
      override def numRows(): OptionalLong = rows
      override def columnStats(): java.util.Map[NamedReference, ColumnStatistics] = columns.asJava
      override def toString: String = s"Statistics(sizeInBytes=${sizeInBytes()}, numRows=$rows, columns=${columns.size})"
    }
  }

  /** The statistics of column `id` over `parts`, if every part has them untrimmed. */
  private def column(parts: Seq[PartMeta], id: Int, dataType: DataType): Option[ColumnStatistics] = {
    val stats = parts.map(p => p.stats.filterNot(_.trimmed(id)).flatMap(_.columns.get(id)).map(p.rowCount -> _))
    if (stats.exists(_.isEmpty)) None
    else {
      val all = stats.flatten
      val nulls = all.map(_._2.nullCount).sum
      // Parts holding a value have both bounds (absent bounds there mean unbounded); all-null parts have none.
      val valued = all.collect { case (rows, c) if c.nullCount < rows => c }
      val internal = internalClass(dataType)
      def exact(v: Option[Any]): Boolean = v.exists(x => internal.contains(x.getClass))
      val bounded = internal.isDefined && valued.nonEmpty && valued.forall(c => exact(c.lower) && exact(c.upper))
      def extreme(values: => Seq[Any], lowest: Boolean): Optional[Object] =
        if (!bounded) Optional.empty()
        else Optional.of((if (lowest) values.minBy(asLong) else values.maxBy(asLong)).asInstanceOf[Object])
      val (lo, hi) = (extreme(valued.map(_.lower.get), lowest = true), extreme(valued.map(_.upper.get), lowest = false))
      Some(new ColumnStatistics {
        override def nullCount(): OptionalLong = OptionalLong.of(nulls)
        override def min(): Optional[Object] = lo
        override def max(): Optional[Object] = hi
      })
    }
  }

  /** The class of Spark's internal values of `dataType`, for the types whose bounds the stats keep exact. */
  private def internalClass(dataType: DataType): Option[Class[_]] = dataType match {
    case ByteType => Some(classOf[java.lang.Byte])
    case ShortType => Some(classOf[java.lang.Short])
    case IntegerType | DateType => Some(classOf[java.lang.Integer])
    case LongType | TimestampType | TimestampNTZType => Some(classOf[java.lang.Long])
    case _ => None
  }

  private def asLong(v: Any): Long = v.asInstanceOf[Number].longValue()
}
