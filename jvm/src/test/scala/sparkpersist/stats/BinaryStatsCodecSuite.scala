package sparkpersist.stats

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import sparkpersist.stats.legacy.LegacyStatsJson

class BinaryStatsCodecSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  private val codec = BinaryStatsCodec(StatsGen.schema)
  private val json = LegacyStatsJson(StatsGen.schema)
  private def utf8(s: String) = UTF8String.fromString(s)
  private def dec(s: String) = new java.math.BigDecimal(s)

  private val parts: Gen[PartStats] = EveryStatsShape.parts

  test("every stats shape round-trips exactly, and reads back as the JSON encoding does") {
    forAll(parts, minSuccessful(100)) { stats =>
      val bytes = codec.encode(stats)
      assert(codec.decode(bytes) === stats)
      assert(json.decode(json.encode(stats)) === stats)
      val entries = stats.columns.toSeq.map { case (id, c) => codec.entrySize(id, c) }
      assert(codec.size(stats.rowCount, stats.bytes, entries, stats.trimmed) === bytes.length)
    }
  }

  test("exact values: NaN, -0.0, infinities, non-UTF-8 strings, 38-digit decimals, huge JSON numbers") {
    val types = Map(1 -> DoubleType, 2 -> FloatType, 3 -> StringType, 4 -> DecimalType(38, 0),
      5 -> VariantType, 6 -> BinaryType, 7 -> DecimalType(12, 2))
    val cut = UTF8String.fromBytes("日本".getBytes("UTF-8").take(4))
    val number = JsonNumberStats(2, Some(dec("-1E-400")), Some(dec("1E+400")), integral = false)
    val doc = JsonStats.empty.copy(count = 2, numbers = number)
    val stats = PartStats(9, 99, Map(
      1 -> ColumnStats(0, Some(-0.0), Some(Double.NaN)),
      2 -> ColumnStats(1, Some(Float.NegativeInfinity), Some(-0.0f)),
      3 -> ColumnStats(2, Some(cut), Some(UTF8String.fromBytes(Array[Byte]('a', -1)))),
      4 -> ColumnStats(0, Some(Decimal(BigDecimal("-99999999999999999999999999999999999999"))),
        Some(Decimal(BigDecimal("99999999999999999999999999999999999999")))),
      5 -> ColumnStats(0, None, None, Some(doc)),
      6 -> ColumnStats(0, Some(Array[Byte]()), Some(Array[Byte](-1, 0, 127))),
      7 -> ColumnStats(0, Some(Decimal(BigDecimal("-0.50"))), Some(Decimal(BigDecimal("1234567890.10"))))))
    val c = new BinaryStatsCodec(types)
    val back = c.decode(c.encode(stats))
    assert(back === stats)
    assert(java.lang.Double.doubleToRawLongBits(back.columns(1).lower.get.asInstanceOf[Double]) ===
      java.lang.Double.doubleToRawLongBits(-0.0))
    assert(java.lang.Float.floatToRawIntBits(back.columns(2).upper.get.asInstanceOf[Float]) ===
      java.lang.Float.floatToRawIntBits(-0.0f))
    assert(back.columns(3).lower.get.asInstanceOf[UTF8String].getBytes.sameElements(cut.getBytes))
    assert(back.columns(7).upper.get.asInstanceOf[Decimal].toJavaBigDecimal.toPlainString === "1234567890.10")
    val numbers = back.columns(5).nested.get.asInstanceOf[JsonStats].numbers
    assert(numbers.upper.get.toString === "1E+400" && numbers.lower.get.toString === "-1E-400")
  }

  test("any damaged byte or truncation fails the read (the state keeps the part), never a wrong bound") {
    val stats = PartStats(10, 100, Map(1 -> ColumnStats(0, Some(5L), Some(9L)),
      3 -> ColumnStats(1, Some(utf8("a")), Some(utf8("b")))))
    val bytes = codec.encode(stats)
    for (i <- bytes.indices; mask <- Seq(0x01, 0x80, 0xff)) {
      val damaged = bytes.clone()
      damaged(i) = (damaged(i) ^ mask).toByte
      assert(scala.util.Try(codec.decode(damaged)).isFailure, s"byte $i ^ $mask")
    }
    (0 until bytes.length).foreach(n => assert(scala.util.Try(codec.decode(bytes.take(n))).isFailure, n))
  }

  test("an unknown field kind is skipped; a damaged field loses its own stat; another type keeps the null count") {
    def column(fields: (Int, Option[Array[Byte]])*): Array[Byte] = StatsBinary.encode { out =>
      out.writeLong(3)
      StatsBinary.writeFields(out, fields: _*)
    }
    val lower = BinaryStatsCodec.bound("x", IntegerType, 4)
    val upper = BinaryStatsCodec.bound("x", IntegerType, 8)
    def read(dt: Option[DataType], bytes: Array[Byte]) = BinaryStatsCodec.readColumn(dt, StatsBinary.decoder(bytes))
    assert(read(Some(IntegerType), column(1 -> lower, 9 -> Some(Array[Byte](1, 2, 3)), 2 -> upper)) ===
      ColumnStats(3, Some(4), Some(8)))
    assert(read(Some(IntegerType), column(1 -> lower.map(_ :+ 0.toByte), 2 -> upper)) === ColumnStats(3, None, Some(8)))
    assert(read(Some(ByteType), column(1 -> BinaryStatsCodec.bound("x", IntegerType, 300), 2 -> upper)) ===
      ColumnStats(3, None, Some(8.toByte)))
    assert(read(None, column(1 -> lower, 2 -> upper)) === ColumnStats(3, None, None))
    val recorded = new BinaryStatsCodec(Map(1 -> IntegerType)).encode(PartStats(1, 2, Map(1 -> ColumnStats(0, Some(1), Some(2)))))
    assert(new BinaryStatsCodec(Map(1 -> LongType)).decode(recorded) === PartStats(1, 2, Map(1 -> ColumnStats(0, None, None))))
  }

  test("a JSON place's cast stats are field 6 of its record: absent before them, unknown fields skipped, damage local") {
    val cs = CastStats("UTC", CastRange(2, Some(1L), Some(9L)), CastRange.none, CastRange.none, CastRange.none,
      CastRange.none, CastRange.none, 1)
    def place(fields: (Int, Option[Array[Byte]])*): Array[Byte] = StatsBinary.encode { out =>
      StatsBinary.writeFields(out, 4 -> Some(StatsBinary.encode { o =>
        Seq(3L, 0L, 0L).foreach(o.writeLong) // count, nulls, others
        StatsBinary.writeFields(o, (3 -> Some(StatsBinary.encode { s =>
          s.writeLong(3)
          StatsBinary.writeFields(s)
        })) +: fields: _*)
      }))
    }
    def read(bytes: Array[Byte]) = BinaryNestedCodec.read(VariantType, StatsBinary.decoder(bytes))
    val strings = JsonStats.empty.copy(count = 3, strings = JsonScalarStats(3, None, None))
    assert(read(place()) === strings)
    assert(read(place(6 -> Some(BinaryCastCodec.write(cs)))) === strings.copy(casts = Some(cs)))
    assert(read(place(6 -> Some(BinaryCastCodec.write(cs)), 9 -> Some(Array[Byte](7, 7)))) === strings.copy(casts = Some(cs)))
    assert(read(place(6 -> Some(BinaryCastCodec.write(cs).dropRight(1)))) === strings)
    assert(BinaryNestedCodec.write(VariantType, strings.copy(casts = Some(cs)), "v") === place(6 -> Some(BinaryCastCodec.write(cs))))
  }

  test("JSON stats whose kinds do not add up, or a key in more objects than there are, are dropped") {
    val types = Map(1 -> VariantType)
    val c = new BinaryStatsCodec(types)
    val key = JsonStats.empty.copy(count = 5, jsonNulls = 5)
    val good = JsonStats.empty.copy(count = 2, objects = JsonObjectStats(2, Map("k" -> key.copy(count = 2, jsonNulls = 2))))
    val tooMany = good.copy(objects = JsonObjectStats(2, Map("k" -> key)))
    val badSum = good.copy(count = 3)
    def nested(j: JsonStats) = c.decode(c.encode(PartStats(1, 1, Map(1 -> ColumnStats(0, None, None, Some(j)))))).columns(1).nested
    assert(nested(good) === Some(good))
    assert(nested(tooMany) === Some(good.copy(objects = JsonObjectStats(2, Map.empty))))
    assert(nested(badSum) === None)
  }

  test("JSON levels past MaxJsonLevels are left out (anything there), however deep the stats") {
    val deep = (1 to 5000).foldLeft(JsonStats.empty.copy(count = 1, jsonNulls = 1)) { (below, _) =>
      JsonStats.empty.copy(count = 1, objects = JsonObjectStats(1, Map("k" -> below)))
    }
    val c = new BinaryStatsCodec(Map(1 -> VariantType))
    val back = c.decode(c.encode(PartStats(1, 1, Map(1 -> ColumnStats(0, None, None, Some(deep))))))
    def depth(j: JsonStats): Int = j.objects.keys.get("k").fold(0)(depth(_) + 1)
    val top = back.columns(1).nested.get.asInstanceOf[JsonStats]
    assert(depth(top) === BinaryNestedCodec.MaxJsonLevels - 1)
    assert(top.objects.count === 1 && top.count === 1)
  }

  test("variantParse (field 6) round-trips in both codecs; stats without it, or on another type, read as absent") {
    val types = Map(1 -> StringType, 2 -> LongType)
    val fact = Some(VariantParse(7, VariantParse.Parser))
    val stats = PartStats(9, 1, Map(1 -> ColumnStats(2, Some(utf8("a")), Some(utf8("b")), variantParse = fact)))
    val binary = new BinaryStatsCodec(types)
    assert(binary.decode(binary.encode(stats)) === stats)
    val text = new LegacyStatsJson(types)
    assert(text.decode(text.encode(stats)) === stats)
    assert(text.encode(stats).contains(s""""variantParse":{"parsed":7,"parser":"${VariantParse.Parser}"}"""))
    val without = stats.copy(columns = stats.columns.map { case (id, c) => id -> c.copy(variantParse = None) })
    assert(binary.decode(binary.encode(without)).columns(1).variantParse === None)
    // A count above the non-null values cannot be true: dropped. On a LONG column: ignored.
    val tooMany = PartStats(9, 1, Map(1 -> ColumnStats(3, None, None, variantParse = fact)))
    assert(binary.decode(binary.encode(tooMany)).columns(1).variantParse === None)
    assert(text.decode(text.encode(tooMany)).columns(1).variantParse === None)
    val onLong = binary.encode(PartStats(9, 1, Map(2 -> ColumnStats(2, None, None, variantParse = fact))))
    assert(binary.decode(onLong).columns(2) === ColumnStats(2, None, None))
  }

  test("collated strings: bounds and filters round-trip in both codecs, under a type tag with the collation's version") {
    val lcase = StringType("UTF8_LCASE")
    val ci = StringType("UNICODE_CI")
    val types = Map(1 -> lcase, 2 -> ci)
    val keys = (dt: StringType, vs: Seq[String]) =>
      Some(MembershipFilter.of(vs.map(v => MembershipFilter.hasher(dt)(utf8(v))).distinct.sorted.toArray))
    val stats = PartStats(5, 1, Map(
      1 -> ColumnStats(1, Some(utf8("Abc")), Some(utf8("abd")), members = keys(lcase, Seq("Abc", "abd"))),
      2 -> ColumnStats(0, Some(utf8("école")), Some(utf8("Zürich")), members = keys(ci, Seq("école", "Zürich")))))
    val binary = new BinaryStatsCodec(types)
    val text = new LegacyStatsJson(types)
    assert(binary.decode(binary.encode(stats)) === stats)
    assert(text.decode(text.encode(stats)) === stats)
    def version(dt: StringType) = org.apache.spark.sql.catalyst.util.CollationFactory.fetchCollation(dt.collationId).version
    val icu = version(ci)
    assert(CollatedStrings.typeTag(ci) === s"string collate UNICODE_CI @${ci.collationId}:$icu")
    assert(CollatedStrings.typeTag(ArrayType(lcase)) === s"array<string collate UTF8_LCASE> @${lcase.collationId}:${version(lcase)}")
    assert(CollatedStrings.typeTag(StringType("UTF8_BINARY")) === "string")
    assert(CollatedStrings.typeTag(StructType(Seq(StructField("c", CharType(3)), StructField("v", VarcharType(5))))) ===
      "struct<c:char(3),v:varchar(5)>")
    // Stats recorded under the bare type (before collated stats, or under another collation
    // version): their order and sort keys may differ, so only the null count is kept.
    val bare = text.encode(stats).replace(s"@${ci.collationId}:$icu", "@0:0")
      .replace(s""""type":"${CollatedStrings.typeTag(lcase)}"""", """"type":"string collate UTF8_LCASE"""")
    assert(text.decode(bare) === PartStats(5, 1, Map(1 -> ColumnStats(1, None, None), 2 -> ColumnStats(0, None, None))))
  }

  test("stats the writer cannot encode are a bug and say so: a bound of the wrong class, an unknown column or field") {
    val long = new BinaryStatsCodec(Map(1 -> LongType))
    val e = intercept[IllegalArgumentException](long.encode(PartStats(1, 1, Map(1 -> ColumnStats(0, Some(5), None)))))
    assert(e.getMessage === "A stats bound of column id 1 (type bigint) must be Catalyst's internal " +
      "value of that type, got java.lang.Integer: 5")
    val e2 = intercept[IllegalArgumentException](long.encode(PartStats(1, 1, Map(9 -> ColumnStats(0, None, None)))))
    assert(e2.getMessage === "Part stats name column id 9, which is not a column of the shard (column ids: 1)")
    val struct = new BinaryStatsCodec(Map(1 -> StructType(Seq(StructField("level", IntegerType)))))
    val e3 = intercept[IllegalArgumentException](struct.encode(PartStats(1, 1, Map(1 -> ColumnStats(0, None, None,
      Some(StructStats(Map("where" -> ColumnStats(0, None, None)))))))))
    assert(e3.getMessage === "Nested stats of column id 1 name field 'where', which struct<level:int> does not have")
  }

  test("the default budget's measure is the binary size, a fraction of the JSON one") {
    forAll(parts, minSuccessful(30)) { stats =>
      assert(new StatsBudget(StatsGen.schema, Set.empty, 0).encodedSize(stats) === codec.encode(stats).length)
      assert(codec.encode(stats).length < json.encode(stats).getBytes("UTF-8").length)
    }
  }
}
