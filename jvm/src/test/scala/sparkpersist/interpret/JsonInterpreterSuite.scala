package sparkpersist.interpret

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.types._
import org.apache.spark.types.variant.VariantBuilder
import org.apache.spark.unsafe.types.{UTF8String, VariantVal}
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.interpret.Values._
import sparkpersist.stats.{JsonLimits, JsonTextCollector, VariantCollector}

/** JSON reads (`variant_get`, `v:path::type`, `get_json_object` and casts) over collected stats. */
class JsonInterpreterSuite extends AnyFunSuite with LocalSpark {

  private lazy val columns = Seq("v" -> VariantType, "js" -> StringType, "l" -> LongType)
    .map { case (n, t) => AttributeReference(n, t)() }
  private lazy val analyzed = new Analyzed(spark, columns)

  /** The default limits, with membership filters of up to 8 strings per place. */
  private val limits = JsonLimits.Default.copy(maxMembers = 8)

  /** The spec of a VARIANT column holding `docs` (null: SQL NULL), from collected stats. */
  private def variant(docs: String*): ResultSpec = variantOf(None, docs)

  /** The same, with the cast stats of its strings collected in `castZone`. */
  private def variantOf(castZone: Option[String], docs: Seq[String]): ResultSpec = {
    val c = new VariantCollector(boundChars = 16, limits, castZone = castZone)
    docs.foreach { d =>
      c.update(InternalRow(if (d == null) null else {
        val v = VariantBuilder.parseJson(d, false)
        new VariantVal(v.getValue, v.getMetadata)
      }), 0)
    }
    new PartSpecs(1, VariantType)(c.result(), docs.size)
  }

  private def text(docs: String*): ResultSpec = textOf(None, docs)

  private def textOf(castZone: Option[String], docs: Seq[String]): ResultSpec = {
    val c = new JsonTextCollector(boundChars = 16, limits, castZone = castZone)
    docs.foreach(d => c.update(InternalRow(if (d == null) null else UTF8String.fromString(d)), 0))
    new PartSpecs(2, StringType)(c.result(), docs.size)
  }

  /** The spec of `sql` (a boolean predicate, or any value) given the specs of some columns. */
  private def spec(sql: String, cols: (String, ResultSpec)*)(implicit ansi: Boolean): ResultSpec = {
    val condition = analyzed(s"($sql) IS NULL", ansi).asInstanceOf[org.apache.spark.sql.catalyst.expressions.IsNull]
    val e = analyzed.withMzNow(condition.child)
    val names = cols.map(_._1).toIndexedSeq
    val slotOf = (a: Attribute) => Some(names.indexOf(a.name)).filter(_ >= 0)
    Interpreter.compile(e, slotOf, MzNowSpec.at(0L)).eval(cols.map(_._2).toArray)
  }

  private implicit val ansi: Boolean = true
  private def bool(f: Boolean, t: Boolean, nullable: Boolean = false, fallible: Boolean = false) =
    ResultSpec.bool(f, t, nullable, fallible)
  private val F = bool(f = true, t = false)
  private val T = bool(f = false, t = true)

  private val numericTs = Seq("""{"ts": 10}""", """{"ts": 50, "x": "a"}""", """{"ts": 20.5}""")

  test("variant_get, v:path::type and try_variant_get over numbers: exact ranges, truncation") {
    for (a <- Seq(true, false)) {
      assert(spec("variant_get(v, '$.ts', 'bigint') > 50", "v" -> variant(numericTs: _*))(a) === F)
      assert(spec("variant_get(v, '$.ts', 'bigint') >= 50", "v" -> variant(numericTs: _*))(a) === bool(true, true))
      assert(spec("v:ts::bigint < 10", "v" -> variant(numericTs: _*))(a) === F)
      assert(spec("try_variant_get(v, '$.ts', 'int') >= 10 AND try_variant_get(v, '$.ts', 'int') <= 50", "v" -> variant(numericTs: _*))(a) === T)
    }
    assert(spec("variant_get(v, '$.ts', 'bigint')", "v" -> variant(numericTs: _*)) ===
      ResultSpec(nullable = false, fallible = false, Within(10L, 50L)))
    assert(spec("variant_get(v, '$.ts', 'double')", "v" -> variant(numericTs: _*)) === ResultSpec(false, false,
      Within(Math.nextDown(Math.nextDown(10.0)), Math.nextUp(Math.nextUp(50.0)))))
    assert(spec("variant_get(v, '$.ts', 'boolean')", "v" -> variant(numericTs: _*)) === ResultSpec(false, false,
      Within(true, true)))
  }

  test("a string, an object or an out-of-range number at the path may raise: the part is kept") {
    for (a <- Seq(true, false)) { // INVALID_VARIANT_CAST does not depend on ANSI
      val withString = variant(numericTs :+ """{"ts": "late"}""": _*)
      // A string such as "99" reads as any number: the comparison may hold, and "late" raises.
      assert(spec("variant_get(v, '$.ts', 'bigint') > 50", "v" -> withString)(a) === bool(true, true, fallible = true))
      assert(spec("v:ts::bigint > 50", "v" -> withString)(a) === bool(true, true, fallible = true))
      // try_ forms turn the failure into null
      assert(spec("try_variant_get(v, '$.ts', 'bigint') > 50", "v" -> withString)(a) === bool(true, true, nullable = true))
      assert(spec("try_cast(v:ts AS bigint) > 50", "v" -> withString)(a) === bool(true, true, nullable = true))
      assert(spec("variant_get(v, '$.ts', 'bigint') > 50", "v" -> variant("""{"ts": {"a": 1}}"""))(a) ===
        ResultSpec(nullable = false, fallible = true, Empty))
      // Out of range for INT: always an error, no value.
      assert(spec("variant_get(v, '$.ts', 'int') > 50", "v" -> variant("""{"ts": 3000000000}"""))(a) ===
        ResultSpec(nullable = false, fallible = true, Empty))
      assert(spec("variant_get(v, '$.ts', 'int') > 50", "v" -> variant("""{"ts": 3000000000}""", """{"ts": 7}"""))(a) ===
        bool(true, true, fallible = true))
    }
    // As a string the same values are fine: a string target reads every kind.
    assert(spec("variant_get(v, '$.ts', 'string') IS NOT NULL", "v" -> variant("""{"ts": {"a": 1}}""", """{"ts": 1}""")) === T)
  }

  test("missing keys, JSON nulls, SQL nulls and other kinds at the path are null, never errors") {
    val docs = variant("""{"ts": 70}""", """{"other": 1}""", """{"ts": null}""", null, "[1]", "5")
    assert(spec("variant_get(v, '$.ts', 'bigint')", "v" -> docs) === ResultSpec(nullable = true, fallible = false,
      Within(70L, 70L)))
    assert(spec("variant_get(v, '$.ts', 'bigint') > 100", "v" -> docs) === bool(true, false, nullable = true))
    // A key the stats do not list may hold anything (keys are dropped to fit the stats budget).
    assert(spec("variant_get(v, '$.nope', 'bigint') > 100", "v" -> docs) === ResultSpec.bool(true, true, true, true))
    // A JSON null read as VARIANT is a variant null, not SQL NULL.
    assert(spec("variant_get(v, '$.ts') IS NULL", "v" -> variant("""{"ts": null}""")) === F)
    assert(spec("variant_get(v, '$.ts', 'int') IS NULL", "v" -> variant("""{"ts": null}""")) === T)
  }

  test("a VARIANT result that may be or contain an object may raise (a duplicate key as stored); scalars do not") {
    val docs = variant("""{"o": {"a": 1}, "xs": [1, 2], "ys": [{"b": 1}], "s": "t"}""")
    for (path <- Seq("$.o", "$", "$.ys")) {
      assert(spec(s"variant_get(v, '$path') IS NULL", "v" -> docs) === bool(f = true, t = false, fallible = true), path)
    }
    // An element or a key the stats do not list may be anything, an object included.
    for (path <- Seq("$.ys[0]", "$.missing")) assert(spec(s"variant_get(v, '$path') IS NULL", "v" -> docs).fallible, path)
    for (path <- Seq("$.o.a", "$.xs", "$.xs[0]", "$.s")) {
      assert(!spec(s"variant_get(v, '$path') IS NULL", "v" -> docs).fallible, path)
    }
    // Read as a scalar type, an object is never rebuilt: null or a cast error, as before.
    assert(spec("variant_get(v, '$.o', 'string') IS NULL", "v" -> docs) === F)
  }

  test("paths through nested objects and arrays") {
    val docs = variant("""{"a": {"b": [1, 2, {"c": 9}]}}""", """{"a": {"b": [3]}}""")
    assert(spec("variant_get(v, '$.a.b[0]', 'int')", "v" -> docs) === ResultSpec(true, true, Within(1, 3)))
    assert(spec("v:a.b[2].c::int", "v" -> docs) === ResultSpec(true, false, Within(9, 9)))
    assert(spec("v:a.b[2].c::int > 9", "v" -> docs) === bool(true, false, nullable = true))
    // An invalid path raises when evaluated.
    assert(spec("variant_get(v, 'a.b', 'int') > 9", "v" -> docs) === ResultSpec.bool(true, true, true, true))
  }

  test("CAST(get_json_object(...) AS BIGINT): integer literals prune; 3.0, strings, true raise under ANSI") {
    val ints = text("""{"ts": 10}""", """{"ts": 50}""", """{"x": 1}""", null)
    assert(spec("CAST(get_json_object(js, '$.ts') AS BIGINT)", "js" -> ints) === ResultSpec(true, false, Within(10L, 50L)))
    for (a <- Seq(true, false)) {
      assert(spec("CAST(get_json_object(js, '$.ts') AS BIGINT) > 50", "js" -> ints)(a) === bool(true, false, nullable = true))
    }
    for (odd <- Seq("""{"ts": 20.0}""", """{"ts": "20"}""", """{"ts": true}""", """{"ts": [20]}""")) {
      val docs = text("""{"ts": 10}""", odd)
      assert(spec("CAST(get_json_object(js, '$.ts') AS BIGINT) > 50", "js" -> docs).fallible, odd)
      assert(!spec("CAST(get_json_object(js, '$.ts') AS BIGINT) > 50", "js" -> docs)(ansi = false).fallible, odd)
      assert(!spec("TRY_CAST(get_json_object(js, '$.ts') AS BIGINT) > 50", "js" -> docs).fallible, odd)
    }
    // 20.0 truncates to 20 when legacy casts accept it: still provably <= 50.
    assert(spec("CAST(get_json_object(js, '$.ts') AS BIGINT) > 50", "js" -> text("""{"ts": 20.0}"""))(ansi = false) ===
      bool(true, false, nullable = true))
    assert(spec("CAST(get_json_object(js, '$.ts') AS DOUBLE) > 50", "js" -> text("""{"ts": 20.5}""", """{"ts": 7}""")) ===
      bool(true, false, nullable = true))
  }

  test("get_json_object never raises: a JSON conjunct no longer blocks pruning of the others") {
    val strings = text("""{"name": "bob"}""", """{"name": "carl"}""")
    assert(spec("get_json_object(js, '$.name')", "js" -> strings) === ResultSpec(true, false,
      Within(UTF8String.fromString("bob"), UTF8String.fromString("carl"))))
    assert(spec("get_json_object(js, '$.name') = 'alice'", "js" -> strings) === bool(true, false, nullable = true))
    val unknown = ResultSpec.AnyValue
    assert(spec("l > 5 AND get_json_object(js, '$.a[*]') = 'x'", "l" -> ResultSpec(false, false, Within(0L, 1L)),
      "js" -> unknown) === F)
    // A top-level JSON null reads as the text 'null' (a null under a key as NULL).
    assert(spec("get_json_object(js, '$')", "js" -> text("\"x\"", "null")) === ResultSpec(true, false,
      Within(UTF8String.fromString("null"), UTF8String.fromString("x"))))
    assert(spec("CAST(get_json_object(js, '$') AS INT) > 5", "js" -> text("1", "null")).fallible)
    // Without JSON stats (a string column not declared JSON) the value is any string or null.
    assert(spec("get_json_object(js, '$.name')", "js" -> unknown) === ResultSpec(true, false, All))
  }

  test("numbers written as text read from their cast stats: one range with the numbers, errors only if some fail") {
    val docs = Seq("""{"ts": 10}""", """{"ts": "40"}""", """{"ts": 25}""", """{"ts": " 7 "}""")
    val utc = Some("UTC")
    val (v, t) = (variantOf(utc, docs), textOf(utc, docs))
    val range = Within(7L, 40L)
    for (a <- Seq(true, false)) {
      assert(spec("variant_get(v, '$.ts', 'bigint')", "v" -> v)(a) === ResultSpec(nullable = false, fallible = false, range))
      assert(spec("try_variant_get(v, '$.ts', 'bigint')", "v" -> v)(a) === ResultSpec(nullable = false, fallible = false, range))
      assert(spec("v:ts::bigint > 40", "v" -> v)(a) === F)
      // get_json_object is null on text it cannot parse
      assert(spec("CAST(get_json_object(js, '$.ts') AS BIGINT)", "js" -> t)(a) === ResultSpec(nullable = true, fallible = false, range))
      assert(spec("try_cast(get_json_object(js, '$.ts') AS INT) < 7", "js" -> t)(a) === bool(true, false, nullable = true))
    }
    // Without cast stats, a string may be anything and may fail.
    assert(spec("variant_get(v, '$.ts', 'bigint') > 40", "v" -> variant(docs: _*)) === bool(true, true, fallible = true))

    val withNa = docs :+ """{"ts": "N/A"}"""
    val (vn, tn) = (variantOf(utc, withNa), textOf(utc, withNa))
    for (a <- Seq(true, false)) { // INVALID_VARIANT_CAST whatever the mode, NULL for try_
      assert(spec("variant_get(v, '$.ts', 'bigint')", "v" -> vn)(a) === ResultSpec(nullable = false, fallible = true, range))
      assert(spec("try_variant_get(v, '$.ts', 'bigint')", "v" -> vn)(a) === ResultSpec(nullable = true, fallible = false, range))
    }
    assert(spec("CAST(get_json_object(js, '$.ts') AS BIGINT)", "js" -> tn)(true) === ResultSpec(nullable = true, fallible = true, range))
    assert(spec("CAST(get_json_object(js, '$.ts') AS BIGINT)", "js" -> tn)(false) === ResultSpec(nullable = true, fallible = false, range))
  }

  test("dates and timestamps written as text, and numbers as text to DECIMAL") {
    val docs = Seq("""{"t": "2026-01-05 10:00:00", "d": "2026-01-05", "x": "1.25"}""", """{"t": "2026-01-05 10:00:00"}""")
    val (v, t) = (variantOf(Some("UTC"), docs), textOf(Some("UTC"), docs))
    val micros = 1767607200000000L // 2026-01-05 10:00:00 UTC
    assert(spec("variant_get(v, '$.t', 'timestamp')", "v" -> v) === ResultSpec(nullable = false, fallible = false, Within(micros, micros)))
    assert(spec("CAST(get_json_object(js, '$.t') AS TIMESTAMP)", "js" -> t) === ResultSpec(nullable = true, fallible = false, Within(micros, micros)))
    val day = 20458 // 2026-01-05
    assert(spec("v:d::date", "v" -> v) === ResultSpec(nullable = true, fallible = false, Within(day, day)))
    assert(spec("CAST(get_json_object(js, '$.x') AS DECIMAL(4,1))", "js" -> t) === ResultSpec(nullable = true, fallible = false,
      Within(org.apache.spark.sql.types.Decimal(new java.math.BigDecimal("1.3"), 4, 1), org.apache.spark.sql.types.Decimal(new java.math.BigDecimal("1.3"), 4, 1))))
  }

  test("a lookup of strings no document holds at a place of strings is ruled out by the place's filter") {
    val kinds = Seq("""{"kind": "click", "n": 1}""", """{"kind": "view"}""", """{"kind": null}""", """{"n": 2}""", null)
    val v = variant(kinds: _*)
    val js = text(kinds: _*)
    val F_ = bool(f = true, t = false, nullable = true)
    // "cart" lies between the bounds ("click" .. "view"): only the filter rules it out.
    Seq("variant_get(v, '$.kind', 'string') = 'cart'", "try_variant_get(v, '$.kind', 'string') = 'cart'",
      "v:kind::string = 'cart'", "'cart' = v:kind::string", "v:kind::string IN ('cart', 'buy')",
      "v:kind::string <=> 'cart'").foreach { q =>
      assert(!spec(q, "v" -> v).mayBeTrue, q)
    }
    Seq("get_json_object(js, '$.kind') = 'cart'", "get_json_object(js, '$.kind') IN ('cart', 'dog')")
      .foreach(q => assert(spec(q, "js" -> js) === F_, q))
    Seq("v:kind::string = 'view'", "v:kind::string IN ('cart', 'click')", "v:kind::string <=> NULL")
      .foreach(q => assert(spec(q, "v" -> v).mayBeTrue, q))
    assert(spec("get_json_object(js, '$.kind') = 'view'", "js" -> js).mayBeTrue)
    // Numbers, booleans and arrays read as strings too: a place holding one is not ruled out.
    val mixed = Seq("""{"kind": "click"}""", """{"kind": 5}""", """{"kind": "view"}""")
    assert(spec("v:kind::string = '5'", "v" -> variant(mixed: _*)).mayBeTrue)
    assert(spec("get_json_object(js, '$.kind') = '5'", "js" -> text(mixed: _*)).mayBeTrue)
    assert(spec("v:kind::string = 'true'", "v" -> variant("""{"kind": "a"}""", """{"kind": true}""", """{"kind": "z"}""")).mayBeTrue)
  }

  test("a lookup of integers no document holds at a place of integers is ruled out by the place's filter") {
    val codes = Seq("""{"code": 7}""", """{"code": 107.0}""", """{"code": 407}""", """{"code": null}""", """{}""")
    val v = variant(codes: _*)
    Seq("variant_get(v, '$.code', 'int') = 150", "try_variant_get(v, '$.code', 'bigint') IN (150, 250)",
      "v:code::int = 150", "CAST(150 AS SMALLINT) = v:code::smallint", "v:code::bigint <=> 150").foreach { q =>
      assert(!spec(q, "v" -> v).mayBeTrue, q)
    }
    Seq("v:code::int = 107", "v:code::int IN (150, 407)").foreach(q => assert(spec(q, "v" -> v).mayBeTrue, q))
    // JSON text: integer literals only ("107.0" is no integer literal: the place gets no filter).
    val text3 = text("""{"code": 7}""", """{"code": 107}""", """{"code": 407}""")
    assert(!spec("CAST(get_json_object(js, '$.code') AS INT) = 150", "js" -> text3).mayBeTrue)
    assert(spec("CAST(get_json_object(js, '$.code') AS INT) = 150", "js" -> text(codes: _*)).mayBeTrue)
    // Strings, booleans and fractions read as integers too: a place holding one is not ruled out.
    assert(spec("v:code::int = 150", "v" -> variant("""{"code": 7}""", """{"code": "150"}""", """{"code": 407}""")).mayBeTrue)
    assert(spec("v:code::int = 1", "v" -> variant("""{"code": 7}""", """{"code": true}""", """{"code": 407}""")).mayBeTrue)
    assert(spec("try_variant_get(v, '$.code', 'int') = 150",
      "v" -> variant("""{"code": 7}""", """{"code": 150.5}""", """{"code": 407}""")).mayBeTrue)
  }
}
