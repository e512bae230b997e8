package sparkpersist.read

import org.apache.spark.sql.types.{Decimal, LongType}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarArray, ColumnarBatch, ColumnarMap}
import org.apache.spark.unsafe.types.UTF8String

/**
 * The positions in its file of the rows a read returns, batch after batch: the row groups the
 * reader reads (`groups`: each one's first row's position in the file and its row count, in read
 * order, after its filters skipped whole groups) are read whole, none of their pages skipped, and
 * Spark's vectorized reader never lets a batch span two of them, so each batch's rows are
 * consecutive from a position found by counting. (Spark's own row index column does the same row
 * by row, boxing each position.) One per read of a file.
 */
final class RowPositions(path: String, groups: IndexedSeq[(Long, Long)]) {
  require(groups.forall(_._1 >= 0), s"the row groups of $path do not say where their rows start: rows cannot be told apart by position")
  private var group = 0
  private var into = 0L

  /** `batch` with a column of its rows' positions inserted at `ordinal`. */
  def insertInto(batch: ColumnarBatch, ordinal: Int): ColumnarBatch =
    RowPositions.inserted(batch, ordinal, new ConsecutiveLongs(next(batch.numRows), 1))

  /** The position of the first of the next `rows` rows, all in one row group. */
  private def next(rows: Int): Long = {
    while (group < groups.size && into == groups(group)._2) {
      group += 1
      into = 0
    }
    if (group >= groups.size || into + rows > groups(group)._2) {
      throw new IllegalStateException(s"Reading $path, a batch of $rows rows does not lie in the row groups " +
        s"${groups.mkString(", ")} (at group $group, row $into): rows cannot be told apart by position.")
    }
    val first = groups(group)._1 + into
    into += rows
    first
  }
}

object RowPositions {
  /** `batch` with a column of -1 (positions not read) inserted at `ordinal`. */
  def unknown(batch: ColumnarBatch, ordinal: Int): ColumnarBatch = inserted(batch, ordinal, new ConsecutiveLongs(-1L, 0))

  private def inserted(batch: ColumnarBatch, ordinal: Int, column: ColumnVector): ColumnarBatch =
    new ColumnarBatch(Array.tabulate[ColumnVector](batch.numCols + 1) { i =>
      if (i < ordinal) batch.column(i) else if (i == ordinal) column else batch.column(i - 1)
    }, batch.numRows)
}

/** The longs `first`, `first + step`, … of a batch's rows: never null. */
private final class ConsecutiveLongs(first: Long, step: Int) extends ColumnVector(LongType) {
  private def unsupported: Nothing = throw new UnsupportedOperationException("positions are longs")

  override def close(): Unit = ()
  override def hasNull: Boolean = false
  override def numNulls: Int = 0
  override def isNullAt(rowId: Int): Boolean = false
  override def getLong(rowId: Int): Long = first + step * rowId
  override def getBoolean(rowId: Int): Boolean = unsupported
  override def getByte(rowId: Int): Byte = unsupported
  override def getShort(rowId: Int): Short = unsupported
  override def getInt(rowId: Int): Int = unsupported
  override def getFloat(rowId: Int): Float = unsupported
  override def getDouble(rowId: Int): Double = unsupported
  override def getArray(rowId: Int): ColumnarArray = unsupported
  override def getMap(rowId: Int): ColumnarMap = unsupported
  override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal = unsupported
  override def getUTF8String(rowId: Int): UTF8String = unsupported
  override def getBinary(rowId: Int): Array[Byte] = unsupported
  override def getChild(ordinal: Int): ColumnVector = unsupported
}
