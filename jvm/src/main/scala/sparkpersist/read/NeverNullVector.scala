package sparkpersist.read

import org.apache.spark.sql.types.{DataType, Decimal}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarArray, ColumnarMap}
import org.apache.spark.unsafe.types.UTF8String

/** Abstract vector of values that are never null, and only some of whose getters apply. */
private[sparkpersist] abstract class NeverNullVector(dataType: DataType) extends ColumnVector(dataType) {
  private def unsupported(what: String): Nothing =
    throw new UnsupportedOperationException(s"$what of a ${dataType.simpleString} vector")

  override def close(): Unit = ()
  override def hasNull: Boolean = false
  override def numNulls: Int = 0
  override def isNullAt(rowId: Int): Boolean = false
  override def getBoolean(rowId: Int): Boolean = unsupported("getBoolean")
  override def getByte(rowId: Int): Byte = unsupported("getByte")
  override def getShort(rowId: Int): Short = unsupported("getShort")
  override def getInt(rowId: Int): Int = unsupported("getInt")
  override def getLong(rowId: Int): Long = unsupported("getLong")
  override def getFloat(rowId: Int): Float = unsupported("getFloat")
  override def getDouble(rowId: Int): Double = unsupported("getDouble")
  override def getArray(rowId: Int): ColumnarArray = unsupported("getArray")
  override def getMap(rowId: Int): ColumnarMap = unsupported("getMap")
  override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal = unsupported("getDecimal")
  override def getUTF8String(rowId: Int): UTF8String = unsupported("getUTF8String")
  override def getBinary(rowId: Int): Array[Byte] = unsupported("getBinary")
  override def getChild(ordinal: Int): ColumnVector = unsupported("getChild")
}
