package sparkpersist.stats
package legacy

import java.math.BigDecimal

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/** The legacy JSON stats (read-only in sparkpersist), written by the tests' [[LegacyStatsJson]]. */
class JsonNestedStatsSuite extends AnyFunSuite {

  private def utf8(s: String) = UTF8String.fromString(s)

  private val attrs = StructType(Seq(
    StructField("level", IntegerType),
    StructField("where", StructType(Seq(StructField("city", StringType), StructField("at", TimestampType))))))
  private val tagList = ArrayType(StructType(Seq(StructField("k", StringType), StructField("w", DoubleType))))
  private val counters = MapType(StringType, LongType)
  private val types: Map[Int, DataType] =
    Map(1 -> attrs, 2 -> tagList, 3 -> counters, 4 -> VariantType, 5 -> StringType)
  private val codec = new LegacyStatsJson(types)

  private def json(count: Long, nulls: Long = 0, numbers: JsonNumberStats = JsonNumberStats.none,
      strings: JsonScalarStats = JsonScalarStats.none, objects: JsonObjectStats = JsonObjectStats.none,
      arrays: JsonArrayStats = JsonArrayStats.none, booleans: JsonScalarStats = JsonScalarStats.none,
      others: Long = 0): JsonStats =
    JsonStats(count, nulls, booleans, numbers, strings, objects, arrays, others)

  private val ts = json(9, nulls = 1,
    numbers = JsonNumberStats(6, Some(new BigDecimal("1767225600000")), Some(new BigDecimal("1767311999999")), integral = true),
    strings = JsonScalarStats(2, Some(utf8("2026-01-01")), Some(utf8("yesterday"))))
  private val document = json(13, others = 1,
    booleans = JsonScalarStats(1, Some(true), Some(true)),
    numbers = JsonNumberStats(1, Some(new BigDecimal("-1.5")), Some(new BigDecimal("1E+400")), integral = false),
    objects = JsonObjectStats(9, Map("ts" -> ts, "tags" -> json(9,
      arrays = JsonArrayStats(9, 0, 3, Some(json(12, strings = JsonScalarStats(12, Some(utf8("a")), None))))))),
    strings = JsonScalarStats(1, Some(utf8("x\u0000")), Some(utf8("x\u0000"))))

  private val stats = PartStats(10, 4096, Map(
    1 -> ColumnStats(2, None, None, Some(StructStats(Map(
      "level" -> ColumnStats(3, Some(1), Some(12)),
      "where" -> ColumnStats(2, None, None, Some(StructStats(Map(
        "city" -> ColumnStats(4, Some(utf8("Berlin")), Some(utf8("Zurich"))),
        "at" -> ColumnStats(2, Some(0L), Some(Long.MaxValue)))))))))),
    2 -> ColumnStats(0, None, None, Some(ArrayStats(0, 5, 17, Some(ColumnStats(1, None, None,
      Some(StructStats(Map("w" -> ColumnStats(3, Some(Double.NegativeInfinity), Some(Double.NaN)))))))))),
    3 -> ColumnStats(1, None, None, Some(MapStats(1, 2, 14, Some(ColumnStats(0, Some(utf8("a")), Some(utf8("b")))), None))),
    4 -> ColumnStats(0, None, None, Some(document)),
    5 -> ColumnStats(0, Some(utf8("{\"a\"")), Some(utf8("{\"z\"")), Some(json(10, objects = JsonObjectStats(10, Map.empty))))))

  private def reencode(edit: String => String): PartStats = codec.decode(edit(codec.encode(stats)))

  test("struct, array, map and JSON stats round-trip exactly") {
    val decoded = codec.decode(codec.encode(stats))
    stats.columns.foreach { case (id, c) => assert(decoded.columns(id) == c, s"column $id") }
    assert(decoded == stats)
  }

  test("the encoding names kinds and leaves out JSON kinds that do not occur") {
    val text = codec.encode(PartStats(10, 1, Map(4 -> ColumnStats(0, None, None, Some(ts)))))
    assert(text.contains(""""nested":{"json":{"count":9,"nulls":1,"num":{"count":6,"lower":"1767225600000","upper":"1767311999999","integral":true},"str":{"count":2,"lower":"2026-01-01","upper":"yesterday"}}}"""))
  }

  test("JSON stats whose kinds do not add up are dropped whole, never read as missing kinds") {
    // Deleting the numbers would claim that `ts` never holds a number.
    val damaged = reencode(_.replace(""","num":{"count":6,"lower":"1767225600000","upper":"1767311999999","integral":true}""", ""))
    val keys = damaged.columns(4).nested.get.asInstanceOf[JsonStats].objects.keys
    assert(!keys.contains("ts"), "the damaged key loses its stats")
    assert(keys.contains("tags"), "its sibling keeps them")
    assert(damaged.columns(4).nullCount == 0)
  }

  test("a key claiming more objects than there are is dropped") {
    val damaged = reencode(_.replace(""""ts":{"count":9""", """"ts":{"count":99"""))
    assert(!damaged.columns(4).nested.get.asInstanceOf[JsonStats].objects.keys.contains("ts"))
  }

  test("nested stats of the wrong kind for the column type are dropped, the column keeps its own") {
    val wrongKind = new LegacyStatsJson(types + (3 -> ArrayType(StringType)))
    val decoded = wrongKind.decode(codec.encode(stats).replace(""""type":"map<string,bigint>"""", """"type":"array<string>""""))
    assert(decoded.columns(3) == ColumnStats(1, None, None, None))
  }

  test("a malformed field or element loses only its own stats") {
    val damaged = reencode(_.replace(""""level":{"nulls":3""", """"level":{"nulls":-3"""))
    val fields = damaged.columns(1).nested.get.asInstanceOf[StructStats].fields
    assert(!fields.contains("level") && fields.contains("where"))
    val noSizes = reencode(_.replace(""""sizes":[0,5]""", """"sizes":[5,0]"""))
    assert(noSizes.columns(2) == ColumnStats(0, None, None, None))
  }

  test("a field the struct type no longer has is ignored on read") {
    val renamed = new LegacyStatsJson(types + (1 -> StructType(Seq(StructField("level", IntegerType)))))
    val decoded = renamed.decode(codec.encode(stats).replace(
      """"type":"struct<level:int,where:struct<city:string,at:timestamp>>"""", """"type":"struct<level:int>""""))
    assert(decoded.columns(1).nested.contains(StructStats(Map("level" -> ColumnStats(3, Some(1), Some(12))))))
  }
}
