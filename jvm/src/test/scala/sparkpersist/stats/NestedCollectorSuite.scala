package sparkpersist.stats

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.stats.legacy.LegacyStatsJson

/**
 * Struct, array and map collectors: exact nested stats for nested structs, arrays of structs,
 * arrays of arrays, maps, nulls at every level and empty collections. Values go through an
 * UnsafeProjection that reuses one buffer, as a write task's rows do.
 */
class NestedCollectorSuite extends AnyFunSuite {
  import NestedCollectorSuite._

  private def collect(dt: DataType, values: Seq[Any], boundChars: Int = 16): ColumnStats = {
    val collector = StatsCollector.forType(dt, boundChars)
    val project = UnsafeProjection.create(Array[DataType](dt))
    values.foreach(v => collector.update(project(InternalRow(v)), 0))
    collector.result()
  }

  private val inner = StructType(Seq(StructField("x", LongType)))
  private val attrs = StructType(Seq(
    StructField("level", IntegerType), StructField("name", StringType), StructField("inner", inner)))

  test("struct: each field over every row, null where the struct or the field is null") {
    val rows = Seq(
      InternalRow(3, str("b"), InternalRow(10L)),
      null,
      InternalRow(null, str("a"), null),
      InternalRow(7, null, InternalRow(null)),
      InternalRow(5, str("c"), InternalRow(-4L)))
    assert(collect(attrs, rows) === ColumnStats(1, None, None, Some(StructStats(Map(
      "level" -> ColumnStats(2, Some(3), Some(7)),
      "name" -> ColumnStats(2, Some(str("a")), Some(str("c"))),
      "inner" -> ColumnStats(2, None, None, Some(StructStats(Map(
        "x" -> ColumnStats(3, Some(-4L), Some(10L)))))))))))
  }

  test("struct: all null, and string fields truncated like columns") {
    assert(collect(attrs, Seq(null, null)) === ColumnStats(2, None, None, Some(StructStats(Map(
      "level" -> ColumnStats(2, None, None),
      "name" -> ColumnStats(2, None, None),
      "inner" -> ColumnStats(2, None, None, Some(StructStats(Map("x" -> ColumnStats(2, None, None))))))))))
    val named = StructType(Seq(StructField("name", StringType)))
    assert(collect(named, Seq(InternalRow(str("abcdef"))), boundChars = 3) === ColumnStats(0, None, None,
      Some(StructStats(Map("name" -> ColumnStats(0, Some(str("abc")), Some(str("abd"))))))))
  }

  test("struct: fields whose name repeats get no stats") {
    val dup = StructType(Seq(StructField("a", IntegerType), StructField("a", StringType), StructField("b", IntegerType)))
    assert(collect(dup, Seq(InternalRow(1, str("x"), 2))) === ColumnStats(0, None, None,
      Some(StructStats(Map("b" -> ColumnStats(0, Some(2), Some(2)))))))
  }

  test("array: sizes over non-null arrays, every element, empty arrays and null elements") {
    val tags = ArrayType(StringType)
    val rows = Seq(array(str("x"), str("y")), null, array(), array(null, str("a"), str("z"), null), array(str("m")))
    assert(collect(tags, rows) === ColumnStats(1, None, None, Some(ArrayStats(0, 4, 7,
      Some(ColumnStats(2, Some(str("a")), Some(str("z"))))))))
    assert(collect(tags, Seq(null, null)) === ColumnStats(2, None, None,
      Some(ArrayStats(0, 0, 0, Some(ColumnStats(0, None, None))))))
    assert(collect(tags, Seq(array(), array())) === ColumnStats(0, None, None,
      Some(ArrayStats(0, 0, 0, Some(ColumnStats(0, None, None))))))
  }

  test("array of structs: field stats over every element, null elements included") {
    val events = ArrayType(StructType(Seq(StructField("k", IntegerType), StructField("v", DoubleType))))
    val rows = Seq(array(InternalRow(1, 0.5), null), array(InternalRow(null, -2.0), InternalRow(9, null)), null)
    assert(collect(events, rows) === ColumnStats(1, None, None, Some(ArrayStats(2, 2, 4, Some(
      ColumnStats(1, None, None, Some(StructStats(Map(
        "k" -> ColumnStats(2, Some(1), Some(9)),
        "v" -> ColumnStats(2, Some(-2.0), Some(0.5)))))))))))
  }

  test("array of arrays and struct of arrays") {
    val matrix = ArrayType(ArrayType(IntegerType))
    val rows = Seq(array(array(1, 2, 3), null, array()), array(array(-5)))
    assert(collect(matrix, rows) === ColumnStats(0, None, None, Some(ArrayStats(1, 3, 4, Some(
      ColumnStats(1, None, None, Some(ArrayStats(0, 3, 4, Some(ColumnStats(0, Some(-5), Some(3)))))))))))
    val holder = StructType(Seq(StructField("tags", ArrayType(IntegerType))))
    assert(collect(holder, Seq(InternalRow(array(4, 2)), null, InternalRow(null))) === ColumnStats(1, None, None,
      Some(StructStats(Map("tags" -> ColumnStats(2, None, None, Some(ArrayStats(2, 2, 2,
        Some(ColumnStats(0, Some(2), Some(4)))))))))))
  }

  test("map: sizes, keys and values over every entry") {
    val m = MapType(StringType, IntegerType)
    val rows = Seq(map(str("a") -> 1, str("k") -> null), null, map(), map(str("b") -> 7))
    assert(collect(m, rows) === ColumnStats(1, None, None, Some(MapStats(0, 2, 3,
      Some(ColumnStats(0, Some(str("a")), Some(str("k")))), Some(ColumnStats(1, Some(1), Some(7)))))))
    val ofStructs = MapType(IntegerType, StructType(Seq(StructField("z", IntegerType))))
    assert(collect(ofStructs, Seq(map(1 -> InternalRow(5), 2 -> null))) === ColumnStats(0, None, None,
      Some(MapStats(2, 2, 2, Some(ColumnStats(0, Some(1), Some(2))), Some(ColumnStats(1, None, None,
        Some(StructStats(Map("z" -> ColumnStats(1, Some(5), Some(5)))))))))))
  }

  test("collected nested stats come back unchanged through the state's stats codec") {
    val types = Array[DataType](attrs, ArrayType(StructType(Seq(StructField("k", IntegerType)))),
      MapType(StringType, ArrayType(DoubleType)), ArrayType(ArrayType(StringType)))
    val c = new PartStatsCollector(Array(1, 2, 3, 4), types, TimeStamp.InRow(4, 5), 4)
    c.update(InternalRow(InternalRow(1, str("long name"), InternalRow(5L)), array(InternalRow(2), null),
      map(str("k") -> array(1.5, null)), array(array(str("x")), array()), 10L, 1L))
    c.update(InternalRow(null, array(), map(), null, 11L, 1L))
    c.update(InternalRow(InternalRow(null, null, null), null, null, array(null), 12L, 1L))
    val stats = c.result(100)
    val codec = new LegacyStatsJson(Map(1 -> types(0), 2 -> types(1), 3 -> types(2), 4 -> types(3)))
    assert(codec.decode(codec.encode(stats)) === stats)
    assert(stats.columns(1).nested.get.asInstanceOf[StructStats].fields("name") ===
      ColumnStats(2, Some(str("long")), Some(str("lonh"))))
  }

  test("part stats carry nested stats per column") {
    val c = new PartStatsCollector(Array(1, 2), Array(attrs, ArrayType(IntegerType)), TimeStamp.InRow(2, 3), 64)
    c.update(InternalRow(InternalRow(1, str("n"), null), array(3, 4), 10L, 1L))
    c.update(InternalRow(null, null, 11L, 1L))
    assert(c.result(0).columns === Map(
      1 -> ColumnStats(1, None, None, Some(StructStats(Map(
        "level" -> ColumnStats(1, Some(1), Some(1)),
        "name" -> ColumnStats(1, Some(str("n")), Some(str("n"))),
        "inner" -> ColumnStats(2, None, None, Some(StructStats(Map("x" -> ColumnStats(2, None, None))))))))),
      2 -> ColumnStats(1, None, None, Some(ArrayStats(2, 2, 2, Some(ColumnStats(0, Some(3), Some(4))))))))
  }
}

object NestedCollectorSuite {
  def str(s: String): UTF8String = UTF8String.fromString(s)
  def array(values: Any*): GenericArrayData = new GenericArrayData(values.toArray)
  def map(entries: (Any, Any)*): ArrayBasedMapData =
    ArrayBasedMapData(entries.map(_._1).toArray, entries.map(_._2).toArray)
}
