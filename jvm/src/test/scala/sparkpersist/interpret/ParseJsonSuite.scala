package sparkpersist.interpret

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, IsNull}
import org.apache.spark.sql.catalyst.expressions.variant.ParseJson
import org.apache.spark.sql.types.{DoubleType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.interpret.Values._
import sparkpersist.stats.{JsonTextCollector, PartStats, VariantParse}

/** `variant_get(parse_json(js), ...)` and `try_parse_json` over a JSON text column's stats. */
class ParseJsonSuite extends AnyFunSuite with LocalSpark {

  private lazy val js = AttributeReference("js", StringType)()
  private lazy val analyzed = new Analyzed(spark, Seq(js))

  /** The stats of one part whose column `js` (id 0) holds `docs` (null: SQL NULL). */
  private def part(docs: String*): PartStats = {
    val c = new JsonTextCollector(boundChars = 16)
    docs.foreach(d => c.update(InternalRow(if (d == null) null else UTF8String.fromString(d)), 0))
    PartStats(docs.size, 0L, Map(0 -> c.result()))
  }

  private def withFact(stats: PartStats)(f: Option[VariantParse] => Option[VariantParse]): PartStats =
    stats.copy(columns = stats.columns.map { case (id, c) => id -> c.copy(variantParse = f(c.variantParse)) })

  /** The spec of `sql` over one part, compiled with `js` and `parse_json(js)` slots as pruning does. */
  private def spec(sql: String, stats: PartStats)(implicit ansi: Boolean): ResultSpec = {
    val e = analyzed.withMzNow(analyzed(s"($sql) IS NULL", ansi).asInstanceOf[IsNull].child)
    val slots = scala.collection.mutable.ArrayBuffer.empty[SlotSpecs]
    def slot(s: SlotSpecs): Option[Int] = { slots += s; Some(slots.size - 1) }
    val node = Interpreter.compile(e, (a: Attribute) => slot(new PartSpecs(0, a.dataType)), MzNowSpec.at(0L),
      parseJsonSlotOf = (_, raises) => slot(new ParseJsonSpecs(0, raises)))
    node.eval(slots.map(_(stats)).toArray)
  }

  private implicit val ansi: Boolean = true
  private def bool(f: Boolean, t: Boolean, nullable: Boolean = false, fallible: Boolean = false) =
    ResultSpec.bool(f, t, nullable, fallible)
  private val F = bool(f = true, t = false)

  private val events = part("""{"ts": 10}""", """{"ts": 50, "x": "a"}""", """{"ts": 20.5}""", null)

  test("parse_json and try_parse_json are recognized before and after the optimizer replaces them") {
    val replaced = analyzed("parse_json(js) IS NULL", ansi = true).asInstanceOf[IsNull].child
    assert(ParseJsonCall.unapply(replaced) === Some((js, true)))
    val tried = analyzed("try_parse_json(js) IS NULL", ansi = true).asInstanceOf[IsNull].child
    assert(ParseJsonCall.unapply(tried) === Some((js, false)))
    assert(ParseJsonCall.unapply(ParseJson(js)) === Some((js, true)))
    assert(ParseJsonCall.unapply(js) === None)
  }

  test("variant_get(parse_json(js), '$.ts', 'bigint') prunes as a VARIANT column would, in both ANSI modes") {
    for (a <- Seq(true, false)) {
      assert(spec("variant_get(parse_json(js), '$.ts', 'bigint') > 50", events)(a) === bool(true, false, nullable = true))
      assert(spec("variant_get(parse_json(js), '$.ts', 'bigint') >= 50", events)(a) === bool(true, true, nullable = true))
      assert(spec("try_variant_get(try_parse_json(js), '$.ts', 'int') < 10", events)(a) === bool(true, false, nullable = true))
      assert(spec("parse_json(js):ts::bigint > 50", events)(a) === bool(true, false, nullable = true))
    }
    // 20.5 is an exact decimal in the VARIANT, truncated to 20.
    assert(spec("variant_get(parse_json(js), '$.ts', 'bigint')", events) === ResultSpec(true, false, Within(10L, 50L)))
    assert(spec("parse_json(js) IS NULL", part("{}", "[]")) === F)
  }

  test("without a VariantParse covering every value, of this Spark, parse_json may raise: the part is kept") {
    val old = withFact(events)(_ => None)
    assert(spec("variant_get(parse_json(js), '$.ts', 'bigint') > 50", old) === ResultSpec.bool(true, true, true, true))
    assert(spec("try_variant_get(try_parse_json(js), '$.ts', 'bigint') > 50", old) === ResultSpec.bool(true, true, true, false))
    val otherSpark = withFact(events)(_.map(_.copy(parser = "spark 4.0.0 jackson 2.18.2")))
    assert(spec("variant_get(parse_json(js), '$.ts', 'bigint') > 50", otherSpark).fallible)
    // A duplicate key deeper than the JSON stats track: the stats stand, parse_json raises.
    val deep = "{\"ts\": 1, \"d\": " + "{\"a\": " * 40 + "{\"k\": 1, \"k\": 2}" + "}" * 40 + "}"
    val dup = part("""{"ts": 10}""", deep)
    assert(dup.columns(0).nested.isDefined)
    assert(spec("variant_get(parse_json(js), '$.ts', 'bigint') > 50", dup) === ResultSpec.bool(true, true, true, true))
    assert(spec("variant_get(try_parse_json(js), '$.ts', 'bigint') > 50", dup).fallible) // variant_get may raise
    assert(!spec("try_variant_get(try_parse_json(js), '$.ts', 'bigint') > 50", dup).fallible)
    // Invalid JSON: no JSON stats, no count.
    assert(spec("variant_get(parse_json(js), '$.ts', 'bigint') > 50", part("""{"ts": 1}""", "{")).fallible)
    // All null: parse_json gives null and never raises.
    assert(spec("variant_get(parse_json(js), '$.ts', 'bigint') > 50", part(null, null)) ===
      ResultSpec(nullable = true, fallible = false, Empty))
  }

  test("numbers as parse_json builds them: integers past 38 digits become doubles, exponents doubles") {
    val big = "1" + "0" * 40 // 1e40 exactly, parsed to the double 1.0E40
    val s = spec("variant_get(parse_json(js), '$.ts', 'double')", part(s"""{"ts": ${big}1}""", """{"ts": -0}"""))
    assert(s.values.asInstanceOf[Within].lo === Math.nextDown(Math.nextDown(0.0)))
    assert(s.mayContain(1.0e40, ValueOrdering.of(DoubleType).get))
    // Out of BIGINT's range: invalid whatever the ANSI mode; TRY gives null.
    for (a <- Seq(true, false)) {
      assert(spec(s"variant_get(parse_json(js), '$$.ts', 'bigint') > 0", part(s"""{"ts": $big}"""))(a) ===
        ResultSpec(nullable = false, fallible = true, Empty))
    }
    assert(spec("variant_get(parse_json(js), '$.ts', 'bigint') > 1000", part("""{"ts": 1e3}""", """{"ts": 25E1}""")) === F)
    // Past the largest double: unbounded.
    assert(spec("variant_get(parse_json(js), '$.ts', 'double') < 0", part(s"""{"ts": 1${"0" * 400}}""")).values ===
      Within(false, true))
  }
}
