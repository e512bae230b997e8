package sparkpersist.stats
package legacy

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import sparkpersist.schema.{ColumnDef, ShardSchema}

/** The legacy JSON stats (read-only in sparkpersist), written by the tests' [[LegacyStatsJson]]. */
class JsonPartStatsSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  private def codecFor(types: DataType*): LegacyStatsJson =
    new LegacyStatsJson(types.zipWithIndex.map { case (t, i) => (i + 1) -> t }.toMap)

  private def roundTrip(dt: DataType, lower: Any, upper: Any): ColumnStats = {
    val codec = codecFor(dt)
    val stats = PartStats(10, 100, Map(1 -> ColumnStats(3, Some(lower), Some(upper))))
    codec.decode(codec.encode(stats)).columns(1)
  }

  private def utf8(s: String) = UTF8String.fromString(s)

  private val extremes: Seq[(DataType, Any, Any)] = Seq(
    (BooleanType, false, true),
    (ByteType, Byte.MinValue, Byte.MaxValue),
    (ShortType, Short.MinValue, Short.MaxValue),
    (IntegerType, Int.MinValue, Int.MaxValue),
    (LongType, Long.MinValue, Long.MaxValue),
    (FloatType, Float.NegativeInfinity, Float.NaN),
    (FloatType, -0.0f, Float.MinPositiveValue),
    (FloatType, Float.MinValue, Float.PositiveInfinity),
    (DoubleType, Double.NegativeInfinity, Double.NaN),
    (DoubleType, -0.0, 0.0),
    (DoubleType, Double.MinPositiveValue, Double.MaxValue),
    (DoubleType, 0.1 + 0.2, 1e-300),
    (DecimalType(38, 0), Decimal(BigDecimal("-99999999999999999999999999999999999999")),
      Decimal(BigDecimal("99999999999999999999999999999999999999"))),
    (DecimalType(12, 2), Decimal(BigDecimal("-0.50")), Decimal(BigDecimal("1234567890.10"))),
    (DateType, Int.MinValue, 19000),
    (TimestampType, Long.MinValue, Long.MaxValue),
    (TimestampNTZType, -1L, 1700000000000000L),
    (DayTimeIntervalType(), Long.MinValue, 86400000000L),
    (YearMonthIntervalType(), -12, Int.MaxValue),
    (StringType, utf8(""), utf8("zz\u0000\uffff")),
    (StringType, utf8("Zürich ☃ 東京"), utf8("😀 \ud83d\ude00 \"quoted\"\n\\")),
    (StringType("UTF8_LCASE"), utf8("Abc"), utf8("abd")),
    (BinaryType, Array[Byte](), Array[Byte](-1, 0, 1, 127, -128)))

  test("every supported type round-trips its exact bounds, extremes included") {
    extremes.foreach { case (dt, lo, hi) =>
      assert(roundTrip(dt, lo, hi) === ColumnStats(3, Some(lo), Some(hi)), dt)
    }
  }

  test("signed zero, NaN and infinities keep their exact bits") {
    val c = roundTrip(DoubleType, -0.0, Double.PositiveInfinity)
    assert(java.lang.Double.doubleToRawLongBits(c.lower.get.asInstanceOf[Double]) ==
      java.lang.Double.doubleToRawLongBits(-0.0))
    assert(c.upper.get == Double.PositiveInfinity)
    val f = roundTrip(FloatType, -0.0f, Float.NaN)
    assert(java.lang.Float.floatToRawIntBits(f.lower.get.asInstanceOf[Float]) ==
      java.lang.Float.floatToRawIntBits(-0.0f))
    assert(f.upper.get.asInstanceOf[Float].isNaN)
  }

  test("the JSON form is explicit and readable") {
    val codec = codecFor(DoubleType, StringType, DecimalType(5, 2), BinaryType, LongType)
    val stats = PartStats(7, 512, Map(
      1 -> ColumnStats(0, Some(-0.0), Some(Double.NaN)),
      2 -> ColumnStats(1, Some(utf8("é")), Some(utf8("日本"))),
      3 -> ColumnStats(2, Some(Decimal(BigDecimal("1.50"))), None),
      4 -> ColumnStats(0, Some(Array[Byte](1, 2, 3)), Some(Array[Byte](-1))),
      5 -> ColumnStats(7, None, None)), trimmed = Set(4, 2))
    assert(codec.encode(stats) ===
      """{"rows":7,"bytes":512,"columns":{""" +
        """"1":{"type":"double","nulls":0,"lower":"-0.0","upper":"NaN"},""" +
        """"2":{"type":"string","nulls":1,"lower":"é","upper":"日本"},""" +
        """"3":{"type":"decimal(5,2)","nulls":2,"lower":"1.50"},""" +
        """"4":{"type":"binary","nulls":0,"lower":"AQID","upper":"/w=="},""" +
        """"5":{"type":"bigint","nulls":7}},"trimmed":[2,4]}""")
    assert(codec.decode(codec.encode(stats)) === stats)
  }

  test("a string bound that is not valid UTF-8 (cut mid-character) keeps its exact bytes") {
    val cut = UTF8String.fromBytes("日本".getBytes("UTF-8").take(4))
    val bumped = UTF8String.fromBytes(Array[Byte]('a', -1))
    val codec = codecFor(StringType)
    val json = codec.encode(PartStats(1, 1, Map(1 -> ColumnStats(0, Some(cut), Some(bumped)))))
    assert(json.contains(""""lower":{"utf8Bytes":"5pel5g=="}"""), json)
    val c = codec.decode(json).columns(1)
    assert(c.lower.get.asInstanceOf[UTF8String].getBytes.sameElements(cut.getBytes))
    assert(c.upper.get.asInstanceOf[UTF8String].getBytes.sameElements(bumped.getBytes))
  }

  test("any Unicode string round-trips to the same bytes, so byte order is kept") {
    forAll(Gen.listOf(Gen.oneOf(Gen.alphaNumChar, Gen.choose('\u0000', '\ud7ff'), Gen.choose('\ue000', '\uffff')))
        .map(_.mkString), Gen.asciiPrintableStr) { (a: String, b: String) =>
      val (x, y) = (utf8(a + "\ud83d\ude00"), utf8(b))
      val c = roundTrip(StringType, x, y)
      val (dx, dy) = (c.lower.get.asInstanceOf[UTF8String], c.upper.get.asInstanceOf[UTF8String])
      assert(dx.getBytes.sameElements(x.getBytes) && dy.getBytes.sameElements(y.getBytes))
      assert(Integer.signum(dx.binaryCompare(dy)) == Integer.signum(x.binaryCompare(y)))
    }
  }

  test("any double or float bit pattern decodes to the same value") {
    forAll { (bits: Long, fbits: Int) =>
      val d = java.lang.Double.longBitsToDouble(bits)
      val f = java.lang.Float.intBitsToFloat(fbits)
      assert(roundTrip(DoubleType, d, d) === ColumnStats(3, Some(d), Some(d)))
      assert(roundTrip(FloatType, f, f) === ColumnStats(3, Some(f), Some(f)))
    }
  }

  test("a type without encoded bounds keeps its null count and loses its bounds") {
    val struct = StructType(Seq(StructField("a", IntegerType)))
    Seq(ArrayType(IntegerType), struct, MapType(StringType, IntegerType), NullType, VariantType).foreach { dt =>
      val codec = codecFor(dt)
      val json = codec.encode(PartStats(4, 8, Map(1 -> ColumnStats(2, Some("x"), Some("y")))))
      assert(codec.decode(json) === PartStats(4, 8, Map(1 -> ColumnStats(2, None, None))), dt)
    }
  }

  test("bounds recorded under another type than the column's current one are dropped") {
    val json = codecFor(IntegerType).encode(PartStats(4, 8, Map(1 -> ColumnStats(0, Some(1), Some(9)))))
    assert(codecFor(LongType).decode(json) === PartStats(4, 8, Map(1 -> ColumnStats(0, None, None))))
    assert(codecFor(DecimalType(10, 1)).decode(
      codecFor(DecimalType(10, 2)).encode(PartStats(1, 1, Map(1 -> ColumnStats(0, Some(Decimal(1)), None)))))
      === PartStats(1, 1, Map(1 -> ColumnStats(0, None, None))))
  }

  test("malformed bounds are dropped, a malformed column loses its stats, never a wrong bound") {
    val codec = codecFor(IntegerType, DoubleType, ByteType, IntegerType, IntegerType)
    val json =
      """{"rows":5,"bytes":9,"columns":{"1":{"type":"int","nulls":1,"lower":"7","upper":3},""" +
        """"2":{"type":"double","nulls":0,"lower":"not a number","upper":"1.5"},""" +
        """"3":{"type":"tinyint","nulls":0,"lower":-129,"upper":127},""" +
        """"4":{"nulls":"x","type":"int","lower":{"a":[1,{"b":2}]},"upper":3},""" +
        """"5":{"type":"int","nulls":0,"lower":1,"upper":2,"future":{"x":[]}},""" +
        """"x":{"type":"int","nulls":0}},"trimmed":[]}"""
    assert(codec.decode(json) === PartStats(5, 9, Map(
      1 -> ColumnStats(1, None, Some(3)),
      2 -> ColumnStats(0, None, Some(1.5)),
      3 -> ColumnStats(0, None, Some(127.toByte)),
      5 -> ColumnStats(0, Some(1), Some(2)))))
  }

  test("a codec built from a shard schema types columns by their stable ids") {
    val schema = ShardSchema(Vector(ColumnDef(7, "b", StringType, nullable = true),
      ColumnDef(3, "a", DateType, nullable = false)), Nil)
    val stats = PartStats(2, 3, Map(3 -> ColumnStats(0, Some(5), Some(6)),
      7 -> ColumnStats(1, Some(utf8("a")), Some(utf8("b")))))
    assert(LegacyStatsJson(schema).decode(LegacyStatsJson(schema).encode(stats)) === stats)
  }
}
