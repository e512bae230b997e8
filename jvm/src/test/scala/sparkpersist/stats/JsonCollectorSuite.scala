package sparkpersist.stats

import java.math.{BigDecimal => JBigDecimal}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.types.variant.VariantBuilder
import org.apache.spark.unsafe.types.{UTF8String, VariantVal}
import org.scalatest.funsuite.AnyFunSuite

/** The VARIANT and JSON text collectors: exact [[JsonStats]] per place, limits, invalid input. */
class JsonCollectorSuite extends AnyFunSuite {

  private def str(s: String) = UTF8String.fromString(s)
  private def dec(s: String) = new JBigDecimal(s)
  private def variant(json: String): VariantVal = {
    val v = VariantBuilder.parseJson(json, false)
    new VariantVal(v.getValue, v.getMetadata)
  }

  /** The column stats of `docs` (null: SQL NULL) through the VARIANT collector. */
  private def ofVariant(docs: String*)(implicit limits: JsonLimits): ColumnStats = {
    val c = new VariantCollector(boundChars = 8, limits)
    docs.foreach(d => c.update(InternalRow(if (d == null) null else variant(d)), 0))
    c.result()
  }

  private def ofText(docs: String*)(implicit limits: JsonLimits): ColumnStats = {
    val c = new JsonTextCollector(boundChars = 8, limits)
    docs.foreach(d => c.update(InternalRow(if (d == null) null else str(d)), 0))
    c.result()
  }

  private implicit val defaults: JsonLimits = JsonLimits.Default

  private def json(c: ColumnStats): JsonStats = c.nested.get.asInstanceOf[JsonStats]
  private def numbers(count: Long, lo: String, hi: String, integral: Boolean) =
    JsonNumberStats(count, Some(dec(lo)), Some(dec(hi)), integral)
  private def strings(count: Long, lo: String, hi: String) = JsonScalarStats(count, Some(str(lo)), Some(str(hi)))
  private def only(count: Long, jsonNulls: Long = 0, booleans: JsonScalarStats = JsonScalarStats.none,
      numbers: JsonNumberStats = JsonNumberStats.none, strings: JsonScalarStats = JsonScalarStats.none,
      objects: JsonObjectStats = JsonObjectStats.none, arrays: JsonArrayStats = JsonArrayStats.none,
      others: Long = 0) = JsonStats(count, jsonNulls, booleans, numbers, strings, objects, arrays, others)

  test("one place with mixed kinds keeps one bound per kind; missing keys and JSON nulls are counted") {
    val docs = Seq("""{"ts": 5, "a": {"b": true}}""", """{"ts": "late"}""", """{"ts": null, "a": {"b": false}}""",
      """{"ts": 2.5}""", null, """[1, "x"]""", "7")
    val expectedTs = only(4, jsonNulls = 1, numbers = numbers(2, "2.5", "5", integral = false),
      strings = strings(1, "late", "late"))
    val expectedA = only(2, objects = JsonObjectStats(2, Map("b" -> only(2,
      booleans = JsonScalarStats(2, Some(false), Some(true))))))
    val expected = only(6, numbers = numbers(1, "7", "7", integral = true),
      objects = JsonObjectStats(4, Map("ts" -> expectedTs, "a" -> expectedA)),
      arrays = JsonArrayStats(1, 2, 2, Some(only(2, numbers = numbers(1, "1", "1", integral = true),
        strings = strings(1, "x", "x")))))
    val v = ofVariant(docs: _*)
    assert(v === ColumnStats(1, None, None, Some(expected)))
    val t = ofText(docs: _*)
    assert(t.nullCount === 1)
    // JSON text: 2.5 is recorded as the neighbours of its double, the rest is the same.
    val textTs = expectedTs.copy(numbers = JsonNumberStats(2, Some(new JBigDecimal(Math.nextDown(2.5))),
      Some(dec("5")), integral = false))
    assert(json(t) === expected.copy(objects = JsonObjectStats(4, Map("ts" -> textTs, "a" -> expectedA))))
    assert(t.lower === Some(str("7")))
    assert(t.upper === Some(str("{\"ts\": o"))) // `{"ts": n` bumped
  }

  test("numbers: every VARIANT number type, exact bounds beyond long and double, integral flag") {
    val v = json(ofVariant("9223372036854775808", "-12345678901234567890.5", "3.0", "1e300"))
    assert(v.numbers === numbers(4, "-12345678901234567890.5", new JBigDecimal(1e300).toPlainString, integral = false))
    assert(json(ofVariant("3.0", "-4", "1e3")).numbers === numbers(3, "-4", "1000", integral = true))
    // Infinity (a double out of range) and NaN leave numbers unbounded, still counted.
    val inf = json(ofVariant("1e400", "1"))
    assert(inf.numbers === JsonNumberStats(2, None, None, integral = false))
    // JSON text: integer literals exact (also beyond long), 3.0 is not an integer literal.
    val t = json(ofText("123456789012345678901234567890", "-0", "7"))
    assert(t.numbers === numbers(3, "0", "123456789012345678901234567890", integral = true))
    assert(json(ofText("3.0")).numbers === JsonNumberStats(1, Some(new JBigDecimal(Math.nextDown(3.0))),
      Some(new JBigDecimal(Math.nextUp(3.0))), integral = false))
    assert(json(ofText("1e400", "2")).numbers === JsonNumberStats(2, None, None, integral = false))
  }

  test("strings are truncated as column bounds are; others are counted") {
    val v = json(ofVariant("\"abcdefghijk\"", "\"b\""))
    assert(v.strings === JsonScalarStats(2, Some(str("abcdefgh")), Some(str("b"))))
    val w = json(ofVariant("\"zzzzzzzzzz\"", "\"a\""))
    assert(w.strings === JsonScalarStats(2, Some(str("a")), Some(str("zzzzzzz{"))))
    val c = new VariantCollector(8)
    val date = new VariantBuilder(false)
    date.appendDate(19000)
    val d = date.result()
    c.update(InternalRow(new VariantVal(d.getValue, d.getMetadata)), 0)
    assert(json(c.result()) === only(1, others = 1))
  }

  test("nested arrays: sizes and element stats per level") {
    val s = json(ofVariant("[[1, 2], []]", "[]", "[[3]]"))
    val inner = only(3, numbers = numbers(3, "1", "3", integral = true))
    assert(s === only(3, arrays = JsonArrayStats(3, 0, 2, Some(only(3,
      arrays = JsonArrayStats(3, 0, 2, Some(inner)))))))
    assert(json(ofText("[[1, 2], []]", "[]", "[[3]]")) === s)
  }

  test("depth limit: deeper places count their values but list no keys or elements") {
    val shallow = JsonLimits(maxDepth = 1, maxKeys = 100)
    val s = json(ofVariant("""{"a": {"b": 1}, "l": [[1]]}""")(shallow))
    assert(s === only(1, objects = JsonObjectStats(1, Map(
      "a" -> only(1, objects = JsonObjectStats(1, Map.empty)),
      "l" -> only(1, arrays = JsonArrayStats(1, 1, 1, None))))))
    assert(json(ofText("""{"a": {"b": 1}, "l": [[1]]}""")(shallow)) === s)
  }

  test("adversarial: depth 1000, 5000 distinct keys") {
    val deep = "[" * 1000 + "]" * 1000
    val deepVariant = json(ofVariant(deep))
    assert(deepVariant.arrays.count === 1)
    def depthOf(s: JsonStats): Int = s.arrays.elements.fold(0)(e => 1 + depthOf(e))
    assert(depthOf(deepVariant) === JsonLimits.Default.maxDepth)
    assert(json(ofText(deep)) === deepVariant)
    // Beyond Jackson's nesting limit the document is refused: the JSON stats are absent.
    assert(ofText("[" * 5000 + "]" * 5000).nested === None)
    val wide = (0 until 5000).map(i => s""""k$i": $i""").mkString("{", ", ", "}")
    for (s <- Seq(json(ofVariant(wide)), json(ofText(wide)))) {
      assert(s.objects.count === 1)
      assert(s.objects.keys.size === JsonLimits.Default.maxKeys)
      s.objects.keys.foreach { case (k, v) =>
        assert(v === only(1, numbers = numbers(1, k.drop(1), k.drop(1), integral = true)))
      }
    }
  }

  test("JSON text: any invalid row makes the part's JSON stats absent, string bounds stay") {
    for (bad <- Seq("{\"a\": 1", "{'a': 1}", "{\"a\": NaN}", "{\"a\": 1} junk", "{\"a\": 1, \"a\": 2}", "",
        "\"\\ud800\"", "01", "[1,]")) {
      val c = ofText("{\"a\": 1}", bad, null)
      assert(c.nested === None, bad)
      assert(c.nullCount === 1)
      assert(c.lower.isDefined)
    }
    // All null: no document seen, so the JSON stats count none (every nested collector reports its pieces).
    assert(ofText(null, null) === ColumnStats(2, None, None, Some(JsonStats.empty)))
  }

  test("JSON text: the values Spark's parse_json accepts are counted, under this Spark's parser") {
    val fine = ofText("{\"a\": 1}", "[1e400, -0, 123456789012345678901234567890123456789012]", null)
    assert(fine.variantParse === Some(VariantParse(2, VariantParse.Parser)))
    assert(fine.variantParse.get.covers(2) && !fine.variantParse.get.covers(3))
    assert(!VariantParse(2, "spark 3.5.0 jackson 2.15.2").covers(2))
    // Duplicate keys below the tracked depth: the JSON stats stand, but parse_json refuses the value.
    val deep = "{\"a\": " * 40 + "{\"k\": 1, \"k\": 2}" + "}" * 40
    val dup = ofText("{\"a\": 1}", deep)
    assert(dup.nested.isDefined)
    assert(dup.variantParse === Some(VariantParse(1, VariantParse.Parser)))
    // Without JSON stats there is no count (parse_json of the column may raise).
    assert(ofText("{\"a\": 1}", "{\"a\": 1} junk").variantParse === None)
    assert(VariantParse.parses(str("{\"a\": 1} junk"))) // parse_json ignores trailing text
    assert(!VariantParse.parses(UTF8String.fromBytes(Array[Byte]('"', 0xff.toByte, '"'))))
    // A key with a lone surrogate becomes '?' in the VARIANT, where it may meet another key: not counted.
    assert(ofText("{\"\\ud800\": 1, \"?\": 2}").variantParse === Some(VariantParse(0, VariantParse.Parser)))
  }

  /** Random JSON documents: keys from a pool wide enough for objects past 16 keys, ASCII, non-ASCII and long strings. */
  private def randomDocument(r: scala.util.Random, depth: Int = 0): String = r.nextInt(if (depth < 3) 9 else 6) match {
    case 0 => r.nextLong().toString
    case 1 => (r.nextInt(2000) - 1000).toString + "." + r.nextInt(100)
    case 2 => Seq("\"a\"", "\"caf\u00e9\"", "\"\u65e5\u672c\"", "\"\ud83d\ude00 x\"", "\"" + "long " * 20 + "\"",
      "\"" + "wide \u00e9 " * 12 + "\"", "\"\"").apply(r.nextInt(7))
    case 3 => Seq("true", "false", "null").apply(r.nextInt(3))
    case 4 => r.nextInt(3).toString
    case 5 => "\"" + r.nextInt(5) + "\""
    case 6 | 7 =>
      val keys = r.shuffle((0 until 24).map(i => s"k$i")).take(if (r.nextInt(4) == 0) 20 else r.nextInt(5))
      keys.map(k => s"\"$k\": ${randomDocument(r, depth + 1)}").mkString("{", ", ", "}")
    case _ => Seq.fill(r.nextInt(4))(randomDocument(r, depth + 1)).mkString("[", ", ", "]")
  }

  test("the byte-level VARIANT walk reads every value as the Variant API does, metadata shared or not") {
    /** What Spark's `Variant` getters read, place by place (the walk before it went over bytes). */
    def reference(v: org.apache.spark.types.variant.Variant, place: JsonPlace): Unit = {
      import org.apache.spark.types.variant.VariantUtil.Type
      v.getType match {
        case Type.OBJECT =>
          place.addObject()
          if (place.tracksChildren) (0 until v.objectSize()).foreach { i =>
            val field = v.getFieldAtIndex(i)
            Option(place.key(field.key)).foreach(reference(field.value, _))
          }
        case Type.ARRAY =>
          place.addArray(v.arraySize())
          Option(place.elementPlace()).foreach(e => (0 until v.arraySize()).foreach(i => reference(v.getElementAtIndex(i), e)))
        case Type.NULL => place.addNull()
        case Type.BOOLEAN => place.addBoolean(v.getBoolean)
        case Type.LONG => place.addLong(v.getLong)
        case Type.DOUBLE => place.addDouble(v.getDouble)
        case Type.DECIMAL => place.addDecimal(v.getDecimal)
        case Type.STRING => place.addString(str(v.getString))
        case _ => place.addOther()
      }
    }
    val r = new scala.util.Random(35)
    for (round <- 0 until 200) {
      val shapes = Seq.fill(1 + r.nextInt(3))(randomDocument(r))
      // Repeats of one document share its metadata; other documents change it.
      val docs = Seq.fill(1 + r.nextInt(6))(shapes(r.nextInt(shapes.size)))
      val limits = JsonLimits(maxDepth = 1 + r.nextInt(4), maxKeys = 5 + r.nextInt(40), maxMembers = r.nextInt(3) * 8)
      val expected = JsonPlace.root(limits, Some("UTC"))
      docs.foreach { d =>
        val v = VariantBuilder.parseJson(d, false)
        reference(new org.apache.spark.types.variant.Variant(v.getValue, v.getMetadata), expected)
      }
      val c = new VariantCollector(boundChars = 8, limits, Some("UTC"))
      docs.foreach(d => c.update(InternalRow(variant(d)), 0))
      assert(json(c.result()) === expected.result(8), s"round $round: ${docs.mkString(" | ")}")
    }
  }

  test("JSON text: duplicate keys are found in small and wide objects, nested or not") {
    val strict = new com.fasterxml.jackson.core.JsonFactory()
      .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
    def hasDuplicate(doc: String): Boolean = {
      val p = strict.createParser(doc)
      try { while (p.nextToken() != null) (); false }
      catch { case _: com.fasterxml.jackson.core.JsonParseException => true }
      finally p.close()
    }
    val r = new scala.util.Random(36)
    var duplicates = 0
    for (_ <- 0 until 400) {
      val n = Seq(2, 15, 16, 17, 40).apply(r.nextInt(5))
      val keys = (0 until n).map(i => s"k${if (r.nextInt(n * 2) == 0) r.nextInt(n) else i}")
      val inner = keys.map(k => s"\"$k\": ${if (r.nextInt(8) == 0) "{\"k0\": 1, \"k1\": [{\"k0\": 2}]}" else "1"}").mkString("{", ", ", "}")
      val doc = if (r.nextBoolean()) inner else s"""{"k0": $inner, "k1": 2}"""
      val dup = hasDuplicate(doc)
      if (dup) duplicates += 1
      assert(ofText("{\"a\": 1}", doc).nested.isDefined === !dup, doc)
    }
    assert(duplicates > 50 && duplicates < 350, duplicates)
  }

  test("the collector chosen per column: VARIANT always, strings only when declared JSON") {
    import org.apache.spark.sql.types.{StringType, VariantType}
    assert(StatsCollector.forType(VariantType, 8).isInstanceOf[VariantCollector])
    assert(StatsCollector.forColumn(StringType, json = true, 8).isInstanceOf[JsonTextCollector])
    assert(StatsCollector.forColumn(StringType, json = false, 8).isInstanceOf[StringCollector])
  }

  test("with a cast zone, the strings of each place get cast stats; places without strings get none") {
    val docs = Seq("""{"ts": "12", "x": 1}""", """{"ts": 5}""", """{"ts": "N/A", "a": ["2026-01-05"]}""", null)
    def castsOf(values: String*): Option[CastStats] = {
      val c = new CastStatsCollector("UTC")
      values.foreach(v => c.add(str(v)))
      c.result()
    }
    val ts = castsOf("12", "N/A")
    assert(ts.get.exact === CastRange(1, Some(12L), Some(12L)))
    assert(ts.get.unparsed === 1)
    val variants = new VariantCollector(boundChars = 8, castZone = Some("UTC"))
    val texts = new JsonTextCollector(boundChars = 8, castZone = Some("UTC"))
    docs.foreach { d =>
      variants.update(InternalRow(if (d == null) null else variant(d)), 0)
      texts.update(InternalRow(if (d == null) null else str(d)), 0)
    }
    for (stats <- Seq(variants.result(), texts.result()).map(json)) {
      assert(stats.casts === None)
      assert(stats.objects.keys("ts").casts === ts)
      assert(stats.objects.keys("x").casts === None)
      assert(stats.objects.keys("a").arrays.elements.get.casts === castsOf("2026-01-05"))
    }
    assert(json(ofVariant(docs: _*)).objects.keys("ts").casts === None)
    assert(json(ofText(docs: _*)).objects.keys("ts").casts === None)
    // The collectors the writer makes pass the zone on.
    assert(json(collected(StatsCollector.forColumn(org.apache.spark.sql.types.StringType, json = true, 8, Some("UTC")),
      docs.map(d => if (d == null) null else str(d)))).objects.keys("ts").casts === ts)
    assert(json(collected(StatsCollector.forColumn(org.apache.spark.sql.types.VariantType, json = false, 8, Some("UTC")),
      docs.map(d => if (d == null) null else variant(d)))).objects.keys("ts").casts === ts)
  }

  private def collected(c: StatsCollector, values: Seq[Any]): ColumnStats = {
    values.foreach(v => c.update(InternalRow(v), 0))
    c.result()
  }
}
