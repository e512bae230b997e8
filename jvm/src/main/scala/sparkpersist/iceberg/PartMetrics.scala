package sparkpersist.iceberg

import java.nio.ByteBuffer

import scala.jdk.CollectionConverters._

import org.apache.iceberg.{Metrics, Schema}
import org.apache.iceberg.types.{Conversions, Type, Types}
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.shard.PartMeta
import sparkpersist.stats.ColumnStats

/**
 * A part's own statistics ([[sparkpersist.stats.PartStats]]) as the Iceberg metrics of its data file:
 * record count, and per top-level column of the schema its value count (the rows), null count and
 * lower and upper bounds, so Iceberg readers prune parts by them. Only what the statistics prove is
 * written: a column without statistics gets no metrics, a float or double bound is widened over
 * signed zeros and dropped where it is NaN (Iceberg's bounds leave NaN out), strings of a collation get
 * none (their bounds are in the collation's order), a string upper bound that
 * the statistics truncated away stays absent.
 */
object PartMetrics {

  /** The metrics of `part` over the columns of `schema`, bounds only for the columns of `bounded`. */
  def of(part: PartMeta, schema: Schema, bounded: Set[Int]): Metrics = part.stats match {
    case None => new Metrics(java.lang.Long.valueOf(part.rowCount), null, null, null, null)
    case Some(stats) =>
      val columns = schema.columns().asScala.flatMap(f => stats.columns.get(f.fieldId()).map(f -> _))
      val valueCounts = columns.map { case (f, _) => Int.box(f.fieldId()) -> Long.box(part.rowCount) }.toMap
      val nullCounts = columns.map { case (f, c) => Int.box(f.fieldId()) -> Long.box(c.nullCount) }.toMap
      val withBounds = columns.filter { case (f, _) => bounded(f.fieldId()) }
      val lowers = bounds(withBounds, lower = true)
      val uppers = bounds(withBounds, lower = false)
      new Metrics(java.lang.Long.valueOf(part.rowCount), null, valueCounts.asJava, nullCounts.asJava, null,
        lowers.asJava, uppers.asJava)
  }

  private def bounds(columns: Iterable[(Types.NestedField, ColumnStats)], lower: Boolean): Map[Integer, ByteBuffer] =
    columns.flatMap { case (f, c) =>
      (if (lower) c.lower else c.upper).flatMap(v => value(f.`type`(), v, lower)).map(v =>
        Int.box(f.fieldId()) -> Conversions.toByteBuffer(f.`type`(), v))
    }.toMap

  /** The Iceberg value of the Catalyst bound `v` of a column of Iceberg type `t`, if it is one Iceberg keeps. */
  private def value(t: Type, v: Any, lower: Boolean): Option[AnyRef] = (t.typeId(), v) match {
    case (Type.TypeID.INTEGER, n: Byte) => Some(Int.box(n.toInt))
    case (Type.TypeID.INTEGER, n: Short) => Some(Int.box(n.toInt))
    case (Type.TypeID.INTEGER | Type.TypeID.DATE, n: Int) => Some(Int.box(n))
    case (Type.TypeID.LONG | Type.TypeID.TIMESTAMP, n: Long) => Some(Long.box(n))
    case (Type.TypeID.BOOLEAN, b: Boolean) => Some(Boolean.box(b))
    case (Type.TypeID.FLOAT, x: Float) =>
      if (x.isNaN) None else Some(Float.box(if (x == 0f) (if (lower) -0f else 0f) else x))
    case (Type.TypeID.DOUBLE, x: Double) =>
      if (x.isNaN) None else Some(Double.box(if (x == 0d) (if (lower) -0d else 0d) else x))
    case (Type.TypeID.DECIMAL, d: Decimal) => Some(d.toJavaBigDecimal.setScale(t.asInstanceOf[Types.DecimalType].scale()))
    case (Type.TypeID.STRING, s: UTF8String) => Some(s.toString)
    case (Type.TypeID.BINARY, b: Array[Byte]) => Some(ByteBuffer.wrap(b))
    case _ => None
  }
}
