package sparkpersist.catalog

import java.util

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Cast, Literal}
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{LocalScan, Scan, ScanBuilder}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.shard.{ShardHandle, ShardState}
import sparkpersist.stats.ColumnStats

/**
 * `persist.<shard>.parts`: one row per part of the shard's current state, in batch and run
 * order, with its size, time range and per-column statistics (bounds rendered as strings, as
 * Spark casts the value to string; binary bounds in hex). `column_stats` is null when the part
 * has no statistics.
 */
final class PartsTable(shard: ShardHandle, tableName: String) extends Table with SupportsRead {

  override def name(): String = tableName

  override def schema(): StructType = PartsTable.Schema

  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = () => {
    val partRows = PartsTable.rows(shard.state, SQLConf.get.sessionLocalTimeZone)
    new LocalScan {
      override def rows(): Array[InternalRow] = partRows
      override def readSchema(): StructType = PartsTable.Schema
    }: Scan
  }
}

object PartsTable {
  private val ColumnStatsType = StructType(Seq(
    StructField("column", StringType, nullable = false),
    StructField("column_id", IntegerType, nullable = false),
    StructField("null_count", LongType, nullable = false),
    StructField("lower", StringType),
    StructField("upper", StringType)))

  val Schema: StructType = StructType(Seq(
    StructField("batch_id", StringType, nullable = false),
    StructField("batch_lower", LongType, nullable = false),
    StructField("batch_upper", LongType, nullable = false),
    StructField("run", IntegerType, nullable = false),
    StructField("key", StringType, nullable = false),
    StructField("row_count", LongType, nullable = false),
    StructField("bytes", LongType, nullable = false),
    StructField("min_time", LongType, nullable = false),
    StructField("max_time", LongType, nullable = false),
    StructField("has_retractions", BooleanType, nullable = false),
    StructField("stats_trimmed", ArrayType(StringType, containsNull = false)),
    StructField("column_stats", ArrayType(ColumnStatsType, containsNull = false))))

  def rows(state: ShardState, timeZone: String): Array[InternalRow] = {
    for {
      batch <- state.batches
      (run, runIndex) <- batch.runs.zipWithIndex
      part <- run.parts
    } yield {
      val columnNames = state.schema.columns.map(c => c.id -> c.name).toMap
      def nameOf(id: Int): String = columnNames.getOrElse(id, s"#$id")
      InternalRow(
        UTF8String.fromString(batch.id), batch.lower, batch.upper, runIndex,
        UTF8String.fromString(part.key), part.rowCount, part.bytes, part.minTime, part.maxTime,
        part.hasRetractions,
        part.stats.map(s => strings(s.trimmed.toSeq.sorted.map(nameOf))).orNull,
        part.stats.map { s =>
          new GenericArrayData(s.columns.toSeq.sortBy(_._1).map { case (id, c) =>
            columnRow(nameOf(id), id, c, state.schema.columnById(id).map(_.dataType), timeZone)
          })
        }.orNull)
    }
  }.toArray

  private def columnRow(name: String, id: Int, stats: ColumnStats, dataType: Option[DataType],
      timeZone: String): InternalRow = {
    def render(bound: Option[Any]): UTF8String = (bound, dataType) match {
      case (Some(v), Some(t)) => BoundText.render(v, t, timeZone)
      case (Some(v), None) => UTF8String.fromString(String.valueOf(v))
      case (None, _) => null
    }
    InternalRow(UTF8String.fromString(name), id, stats.nullCount, render(stats.lower), render(stats.upper))
  }

  private def strings(values: Seq[String]): GenericArrayData =
    new GenericArrayData(values.map(UTF8String.fromString))
}

/** Text of a statistics bound (a Catalyst internal value of the column's type). */
private[catalog] object BoundText {
  def render(value: Any, dataType: DataType, timeZone: String): UTF8String = value match {
    case bytes: Array[Byte] => UTF8String.fromString("0x" + bytes.map("%02X".format(_)).mkString)
    case _ =>
      // A bound of another type than the column's (e.g. of a nested field) still shows as text.
      scala.util.Try(Cast(Literal(value, dataType), StringType, Some(timeZone)).eval().asInstanceOf[UTF8String])
        .getOrElse(UTF8String.fromString(String.valueOf(value)))
  }
}
