package sparkpersist.read

import org.apache.spark.sql.types.Decimal
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarArray, ColumnarBatch, ColumnarMap}
import org.apache.spark.unsafe.types.{CalendarInterval, UTF8String}

/**
 * The rows of `base` at `positions(0 until size)`, in that order, as a column vector of `size`
 * rows: a position may repeat (a row standing for several copies) and rows may be left out (a row
 * cancelled by a retraction), without copying any value. Struct fields are selected alike, so a
 * struct or variant reads through; arrays and maps are the base's own. Never closes `base`: the
 * reader that filled it owns it.
 *
 * Only the abstract getters (and the interval's, read through children) are delegated: the other
 * getters a Spark line adds (geography and geometry in 4.1, binary views and nanosecond timestamps
 * in 4.2 and 4.3) default to reading through these, so they select the same rows on every line.
 */
final class SelectedColumnVector(base: ColumnVector, positions: Array[Int], size: Int)
  extends ColumnVector(base.dataType()) {

  private lazy val children = new Array[SelectedColumnVector](childCount)

  private def childCount: Int = base.dataType() match {
    case s: org.apache.spark.sql.types.StructType => s.length
    case _: org.apache.spark.sql.types.VariantType => 2
    case _: org.apache.spark.sql.types.CalendarIntervalType => 3
    case _ => 0
  }

  override def close(): Unit = ()

  override def hasNull: Boolean = base.hasNull

  override def numNulls: Int = if (!base.hasNull) 0 else (0 until size).count(i => base.isNullAt(positions(i)))

  override def isNullAt(rowId: Int): Boolean = base.isNullAt(positions(rowId))
  override def getBoolean(rowId: Int): Boolean = base.getBoolean(positions(rowId))
  override def getByte(rowId: Int): Byte = base.getByte(positions(rowId))
  override def getShort(rowId: Int): Short = base.getShort(positions(rowId))
  override def getInt(rowId: Int): Int = base.getInt(positions(rowId))
  override def getLong(rowId: Int): Long = base.getLong(positions(rowId))
  override def getFloat(rowId: Int): Float = base.getFloat(positions(rowId))
  override def getDouble(rowId: Int): Double = base.getDouble(positions(rowId))
  override def getArray(rowId: Int): ColumnarArray = base.getArray(positions(rowId))
  override def getMap(rowId: Int): ColumnarMap = base.getMap(positions(rowId))
  override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal =
    base.getDecimal(positions(rowId), precision, scale)
  override def getUTF8String(rowId: Int): UTF8String = base.getUTF8String(positions(rowId))
  override def getBinary(rowId: Int): Array[Byte] = base.getBinary(positions(rowId))
  override def getInterval(rowId: Int): CalendarInterval = base.getInterval(positions(rowId))

  override def getChild(ordinal: Int): ColumnVector = {
    if (children(ordinal) == null) children(ordinal) = new SelectedColumnVector(base.getChild(ordinal), positions, size)
    children(ordinal)
  }
}

object SelectedColumnVector {
  /** The rows of `batch` at `positions(0 until size)`, as a batch of `size` rows. */
  def select(batch: ColumnarBatch, positions: Array[Int], size: Int): ColumnarBatch =
    new ColumnarBatch(Array.tabulate[ColumnVector](batch.numCols)(c => new SelectedColumnVector(batch.column(c), positions, size)), size)
}
