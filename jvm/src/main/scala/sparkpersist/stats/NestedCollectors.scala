package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.types.{DataType, StructType}

/**
 * [[StructStats]] of a struct column: one collector per field, fed every row of the part. A null
 * struct counts as a null in every field (and, through them, in every nested field), so each
 * field's stats are over all rows, as [[StructStats]] documents.
 *
 * Fields whose name occurs more than once in the struct (Spark allows it) are not collected:
 * stats are keyed by name, and a field without stats may hold anything.
 */
final class StructCollector(struct: StructType, boundChars: Int, castZone: Option[String] = None) extends StatsCollector {
  private val numFields = struct.length
  private val ordinals: Array[Int] =
    struct.fields.indices.filter(i => struct.fields.count(_.name == struct(i).name) == 1).toArray
  private val fields: Array[StatsCollector] =
    ordinals.map(i => StatsCollector.forType(struct(i).dataType, boundChars, castZone))

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = {
    val value = row.getStruct(ordinal, numFields)
    var i = 0
    while (i < fields.length) {
      fields(i).update(value, ordinals(i))
      i += 1
    }
  }

  override protected def nestedNull(): Unit = {
    var i = 0
    while (i < fields.length) {
      fields(i).updateNull()
      i += 1
    }
  }

  override protected def lower: Option[Any] = None
  override protected def upper: Option[Any] = None

  override protected def nested: Option[NestedStats] =
    Some(StructStats(ordinals.indices.map(i => struct(ordinals(i)).name -> fields(i).result()).toMap))
}

/**
 * The fewest and most entries of the non-null collections of a column (arrays or maps), and
 * their total; `minSize`/`maxSize` are 0 while no collection was seen.
 */
private[stats] final class SizeRange {
  private var min = Int.MaxValue
  private var max = 0
  private var total = 0L

  def add(n: Int): Unit = {
    if (n < min) min = n
    if (n > max) max = n
    total += n
  }

  def minSize: Int = if (min == Int.MaxValue) 0 else min
  def maxSize: Int = max
  def count: Long = total
}

/**
 * [[ArrayStats]] of an array column: sizes of its non-null arrays, and the stats of all their
 * elements from the element type's collector (recursively: arrays of structs, of arrays, ...).
 * Elements are fed straight from the array (an [[org.apache.spark.sql.catalyst.util.ArrayData]]
 * is a [[SpecializedGetters]]), without copying.
 */
final class ArrayCollector(elementType: DataType, boundChars: Int, castZone: Option[String] = None)
    extends StatsCollector {
  private val sizes = new SizeRange
  private val elements = StatsCollector.forType(elementType, boundChars, castZone)

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = {
    val array = row.getArray(ordinal)
    val n = array.numElements()
    sizes.add(n)
    var i = 0
    while (i < n) {
      elements.update(array, i)
      i += 1
    }
  }

  override protected def lower: Option[Any] = None
  override protected def upper: Option[Any] = None

  override protected def nested: Option[NestedStats] =
    Some(ArrayStats(sizes.minSize, sizes.maxSize, sizes.count, Some(elements.result())))
}

/** [[MapStats]] of a map column: sizes of its non-null maps, stats of all keys and all values. */
final class MapCollector(keyType: DataType, valueType: DataType, boundChars: Int, castZone: Option[String] = None)
    extends StatsCollector {
  private val sizes = new SizeRange
  private val keys = StatsCollector.forType(keyType, boundChars, castZone)
  private val values = StatsCollector.forType(valueType, boundChars, castZone)

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = {
    val map = row.getMap(ordinal)
    val n = map.numElements()
    sizes.add(n)
    val keyArray = map.keyArray()
    val valueArray = map.valueArray()
    var i = 0
    while (i < n) {
      keys.update(keyArray, i)
      values.update(valueArray, i)
      i += 1
    }
  }

  override protected def lower: Option[Any] = None
  override protected def upper: Option[Any] = None

  override protected def nested: Option[NestedStats] =
    Some(MapStats(sizes.minSize, sizes.maxSize, sizes.count, Some(keys.result()), Some(values.result())))
}
