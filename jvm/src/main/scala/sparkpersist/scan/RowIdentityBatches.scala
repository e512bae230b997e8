package sparkpersist.scan

import org.apache.spark.sql.types.{DataType, StringType, StructType}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.read.{ConsecutiveLongs, NeverNullVector, PartFile}

/**
 * [[RowIdentityProjection]] for columnar batches: the scan's `output` columns of each batch (laid
 * out as the reader's `inputSchema`, every data column of `dataSchema` in it), `_persist_row_id`
 * numbering the rows as the row form does (the task's partition in the high bits, the row's
 * position in the task below), `_persist_row` a struct whose fields are the batch's own data
 * column vectors and `_persist_row_source` a struct of the part's key and the batch's own vector
 * of positions: nothing is copied. One per task: it numbers the rows.
 */
final class RowIdentityBatches(output: StructType, inputSchema: StructType, dataSchema: StructType) {
  import RowIdentity._

  private val dataOrdinals: Array[Int] = dataSchema.fieldNames.map(inputSchema.fieldIndex)
  private val sourceOf: Array[Int] = sources(output, inputSchema)
  private val highBits: Long = partitionBits
  private val positionAt: Int = positionOrdinal(inputSchema)
  private var position = 0L

  /**
   * The batch of the output columns of each batch read from `file`; `None`: batches consolidated
   * from several parts, or read without their positions (their source is null).
   */
  def of(file: Option[PartFile]): ColumnarBatch => ColumnarBatch = {
    val key = file.filter(_ => positionAt >= 0).map(f => new ConstantStringVector(UTF8String.fromString(f.key)))
    batch => {
      val columns = sourceOf.map {
        case RowId => new ConsecutiveLongs(highBits | position, 1)
        case Row => new StructOfVectors(dataSchema, dataOrdinals.map(batch.column))
        case Source => key.fold[ColumnVector](new NullVector(SourceType, batch.numRows))(k =>
          new StructOfVectors(SourceType, Array(k, batch.column(positionAt))))
        case at => batch.column(at)
      }
      position += batch.numRows
      new ColumnarBatch(columns, batch.numRows)
    }
  }
}

/** A struct, never null, whose fields are `fields`. */
private final class StructOfVectors(schema: StructType, fields: Array[ColumnVector]) extends NeverNullVector(schema) {
  override def getChild(ordinal: Int): ColumnVector = fields(ordinal)
}

/** The string `value` in every row. */
private final class ConstantStringVector(value: UTF8String) extends NeverNullVector(StringType) {
  override def getUTF8String(rowId: Int): UTF8String = value
}

/** Null in each of `rows` rows (a struct's fields null too). */
private final class NullVector(dataType: DataType, rows: Int) extends NeverNullVector(dataType) {
  override def hasNull: Boolean = true
  override def numNulls: Int = rows
  override def isNullAt(rowId: Int): Boolean = true
  override def getChild(ordinal: Int): ColumnVector =
    new NullVector(dataType.asInstanceOf[StructType].fields(ordinal).dataType, rows)
}
