package sparkpersist.scan

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.types.{DataType, LongType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.read.{PartFile, PartFileReader}

/**
 * The metadata columns a snapshot scan can add to its rows, for row-level operations
 * (`sparkpersist.dml`):
 *  - `_persist_row_id` (bigint, never null): a number distinct for every row the scan returns,
 *    copies of a row held more than once included (the task's partition in the high bits, the
 *    row's position in the task below). It is stable across attempts of a task, since a task reads
 *    the same parts in the same order, but not across scans: it identifies a row within one
 *    statement, which is all Spark asks of a row id (matching a MERGE's target rows once each).
 *  - `_persist_row` (a struct of every data column, never null): the row itself, which a row-level
 *    write retracts. A shard row has no identity beyond its values: retracting it is writing those
 *    values with diff -1.
 *  - `_persist_row_source` (a struct of the `part` key and the row's `position` in its file): the
 *    stored row the scan read it from, when it read it from exactly one row of diff +1 (a snapshot
 *    read without consolidation); else null. A row-level write records it beside the retraction
 *    ([[sparkpersist.positional.RetractedPositions]]).
 */
object RowIdentity {
  val RowIdColumn = "_persist_row_id"
  val RowColumn = "_persist_row"
  val SourceColumn = "_persist_row_source"

  /** The type of `_persist_row_source`. */
  val SourceType: StructType = new StructType().add("part", StringType, nullable = false)
    .add("position", LongType, nullable = false)

  /** The metadata columns of a shard of data columns `dataSchema`. */
  def columns(dataSchema: StructType): Array[MetadataColumn] =
    Array(column(RowIdColumn, LongType, "the row's number within the scan", nullable = false),
      column(RowColumn, dataSchema, "the row's data columns", nullable = false),
      column(SourceColumn, SourceType, "the part and position the row was read from", nullable = true))

  def isMetadata(name: String): Boolean = name == RowIdColumn || name == RowColumn || name == SourceColumn

  /** Bits of a row id that hold the row's position in its task. */
  private[scan] val PositionBits = 36

  /** Where each output column comes from: [[RowId]], [[Row]], [[Source]], or its ordinal in `inputSchema`. */
  private[scan] def sources(output: StructType, inputSchema: StructType): Array[Int] = output.fieldNames.map {
    case RowIdColumn => RowId
    case RowColumn => Row
    case SourceColumn => Source
    case name => inputSchema.fieldIndex(name)
  }

  private[scan] val RowId = -1
  private[scan] val Row = -2
  private[scan] val Source = -3

  /** The high bits of the row ids of the running task. */
  private[scan] def partitionBits: Long = Option(TaskContext.get()).fold(0L)(_.partitionId().toLong) << PositionBits

  /** The ordinal of the rows' position in `inputSchema`, the reader's ([[PartFileReader.PositionColumn]]), or -1. */
  private[scan] def positionOrdinal(inputSchema: StructType): Int =
    inputSchema.fieldNames.indexOf(PartFileReader.PositionColumn)

  private def column(columnName: String, tpe: DataType, doc: String, nullable: Boolean): MetadataColumn =
    new MetadataColumn {
      override def name(): String = columnName
      override def dataType(): DataType = tpe
      override def isNullable: Boolean = nullable
      override def comment(): String = doc
    }
}

/**
 * Shapes the rows a task reads (`input`, laid out as the reader's `inputSchema`, every data column
 * of `dataSchema` in it) into the scan's `output` columns, metadata columns included. One per task:
 * it numbers the rows.
 */
final class RowIdentityProjection(output: StructType, inputSchema: StructType, dataSchema: StructType) {
  import RowIdentity._

  private val dataOrdinals: Array[Int] = dataSchema.fieldNames.map(inputSchema.fieldIndex)
  private val dataTypes: Array[DataType] = dataSchema.fields.map(_.dataType)
  private val sourceOf: Array[Int] = sources(output, inputSchema)
  private val outputTypes: Array[DataType] = output.fields.map(_.dataType)
  private val highBits: Long = partitionBits
  private val positionAt: Int = positionOrdinal(inputSchema)
  private var position = 0L
  private val row = new GenericInternalRow(sourceOf.length)

  /**
   * The output row of each row read from `file`, valid until the next call; `None`: rows
   * consolidated from several parts, or read without their positions (their source is null).
   */
  def of(file: Option[PartFile]): InternalRow => InternalRow = {
    val key = file.filter(_ => positionAt >= 0).map(f => UTF8String.fromString(f.key))
    input => {
      var i = 0
      while (i < sourceOf.length) {
        sourceOf(i) match {
          case RowId =>
            row.setLong(i, highBits | position)
            position += 1
          case Row =>
            row.update(i, new GenericInternalRow(Array.tabulate[Any](dataOrdinals.length)(j =>
              valueAt(input, dataOrdinals(j), dataTypes(j)))))
          case Source =>
            row.update(i, key.map(k => new GenericInternalRow(Array[Any](k, input.getLong(positionAt)))).orNull)
          case at =>
            row.update(i, valueAt(input, at, outputTypes(i)))
        }
        i += 1
      }
      row
    }
  }

  /** The value at `ordinal`, or null: rows of columnar batches do not check for nulls in `get`. */
  private def valueAt(input: InternalRow, ordinal: Int, tpe: DataType): Any =
    if (input.isNullAt(ordinal)) null else input.get(ordinal, tpe)
}
