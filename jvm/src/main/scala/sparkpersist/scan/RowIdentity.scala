package sparkpersist.scan

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.types.{DataType, LongType, StructType}

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
 */
object RowIdentity {
  val RowIdColumn = "_persist_row_id"
  val RowColumn = "_persist_row"

  /** The metadata columns of a shard of data columns `dataSchema`. */
  def columns(dataSchema: StructType): Array[MetadataColumn] =
    Array(column(RowIdColumn, LongType, "the row's number within the scan"),
      column(RowColumn, dataSchema, "the row's data columns"))

  def isMetadata(name: String): Boolean = name == RowIdColumn || name == RowColumn

  /** Bits of a row id that hold the row's position in its task. */
  private[scan] val PositionBits = 36

  private def column(columnName: String, tpe: DataType, doc: String): MetadataColumn = new MetadataColumn {
    override def name(): String = columnName
    override def dataType(): DataType = tpe
    override def isNullable: Boolean = false
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
  /** Per output column: its ordinal in the input, or -1 (row id) or -2 (row). */
  private val sources: Array[Int] = output.fieldNames.map {
    case RowIdColumn => -1
    case RowColumn => -2
    case name => inputSchema.fieldIndex(name)
  }
  private val outputTypes: Array[DataType] = output.fields.map(_.dataType)
  private val partitionBits: Long = Option(TaskContext.get()).fold(0L)(_.partitionId().toLong) << PositionBits
  private var position = 0L
  private val row = new GenericInternalRow(sources.length)

  /** `input` as an output row, valid until the next call. */
  def apply(input: InternalRow): InternalRow = {
    var i = 0
    while (i < sources.length) {
      sources(i) match {
        case -1 =>
          row.setLong(i, partitionBits | position)
          position += 1
        case -2 =>
          row.update(i, new GenericInternalRow(Array.tabulate[Any](dataOrdinals.length)(j =>
            valueAt(input, dataOrdinals(j), dataTypes(j)))))
        case at =>
          row.update(i, valueAt(input, at, outputTypes(i)))
      }
      i += 1
    }
    row
  }

  /** The value at `ordinal`, or null: rows of columnar batches do not check for nulls in `get`. */
  private def valueAt(input: InternalRow, ordinal: Int, tpe: DataType): Any =
    if (input.isNullAt(ordinal)) null else input.get(ordinal, tpe)
}
