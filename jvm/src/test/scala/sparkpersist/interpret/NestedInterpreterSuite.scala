package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.interpret.Values._
import sparkpersist.stats._

/**
 * Struct fields, array elements, map values, sizes and `array_contains`, interpreted over specs built by
 * [[PartSpecs]] from nested stats, on predicates analyzed by Spark in both ANSI modes.
 */
class NestedInterpreterSuite extends AnyFunSuite with LocalSpark {

  private val inner = StructType(Seq(StructField("x", LongType)))
  private val attrsType = StructType(Seq(StructField("level", IntegerType), StructField("inner", inner)))
  private val eventsType = ArrayType(StructType(Seq(StructField("k", IntegerType))))
  private val types = Seq("attrs" -> attrsType, "tags" -> ArrayType(StringType),
    "m" -> MapType(StringType, IntegerType), "events" -> eventsType)
  private lazy val analyzed = new Analyzed(spark, types.map { case (n, t) => AttributeReference(n, t)() })

  private val Rows = 10L
  private def str(s: String) = UTF8String.fromString(s)
  private def col(nulls: Long, lo: Any, hi: Any) = ColumnStats(nulls, Some(lo), Some(hi))
  private def attrs(level: ColumnStats, x: ColumnStats = ColumnStats(0, Some(0L), Some(0L))) =
    ColumnStats(0, None, None, Some(StructStats(Map("level" -> level,
      "inner" -> ColumnStats(0, None, None, Some(StructStats(Map("x" -> x))))))))
  private def tags(minSize: Int, maxSize: Int, elements: ColumnStats, nulls: Long = 0) =
    ColumnStats(nulls, None, None, Some(ArrayStats(minSize, maxSize, 20, Some(elements))))
  private def map(minSize: Int, maxSize: Int, keys: ColumnStats, values: ColumnStats) =
    ColumnStats(0, None, None, Some(MapStats(minSize, maxSize, 20, Some(keys), Some(values))))

  /** The spec of `sql` over a part of [[Rows]] rows with the given column stats. */
  private def spec(sql: String, ansi: Boolean, stats: (String, ColumnStats)*): ResultSpec = {
    val e = analyzed(sql, ansi)
    val part = PartStats(Rows, 0, stats.map { case (n, s) => types.indexWhere(_._1 == n) -> s }.toMap)
    val specs = types.indices.map(i => new PartSpecs(i, types(i)._2)(part)).toArray
    val slotOf = (a: Attribute) => Some(types.indexWhere(_._1 == a.name)).filter(_ >= 0)
    SQLConf.withExistingConf(spark.sessionState.conf) {
      Interpreter.compile(e, slotOf, MzNowSpec.at(0L)).eval(specs)
    }
  }

  private def both(sql: String, stats: (String, ColumnStats)*): (ResultSpec, ResultSpec) =
    (spec(sql, ansi = true, stats: _*), spec(sql, ansi = false, stats: _*))

  private def bool(f: Boolean, t: Boolean, nullable: Boolean = false, fallible: Boolean = false) =
    ResultSpec.bool(f, t, nullable, fallible)
  private val F = bool(f = true, t = false)
  private val TF = bool(f = true, t = true)

  test("PartSpecs: nested specs from struct, array and map stats") {
    val s = new PartSpecs(0, attrsType)(attrs(col(2, 1, 5)), Rows)
    assert(s === ResultSpec(nullable = false, fallible = false, Nested(Map(
      "level" -> ResultSpec(nullable = true, fallible = false, Within(1, 5)),
      "inner" -> ResultSpec(nullable = false, fallible = false, Nested(Map(
        "x" -> ResultSpec(nullable = false, fallible = false, Within(0L, 0L)))))))))
    val a = new PartSpecs(1, ArrayType(StringType))(tags(1, 3, col(0, str("a"), str("m")), nulls = 10), Rows)
    assert(a === ResultSpec(nullable = true, fallible = false, Empty))
    val t = new PartSpecs(1, ArrayType(StringType))(tags(1, 3, col(20, str("a"), str("m"))), Rows)
    assert(t === ResultSpec(nullable = false, fallible = false, Nested(Map(
      "size" -> ResultSpec(nullable = false, fallible = false, Within(1, 3)),
      "element" -> ResultSpec(nullable = true, fallible = false, Empty)))))
    val m = new PartSpecs(2, MapType(StringType, IntegerType))(map(2, 1, col(0, str("a"), str("b")),
      ColumnStats(0, None, None)), Rows)
    // Inconsistent sizes are dropped; values without bounds admit anything.
    assert(m === ResultSpec(nullable = false, fallible = false, Nested(Map(
      "key" -> ResultSpec(nullable = false, fallible = false, Within(str("a"), str("b"))),
      "value" -> ResultSpec(nullable = false, fallible = false, All)))))
    // No nested stats, or nested stats of another kind: any value.
    assert(new PartSpecs(0, attrsType)(ColumnStats(1, None, None), Rows) ===
      ResultSpec(nullable = true, fallible = false, All))
    assert(new PartSpecs(1, ArrayType(StringType))(attrs(col(0, 1, 1)), Rows) ===
      ResultSpec(nullable = false, fallible = false, All))
  }

  test("struct fields, nested structs, any spelling of the field name") {
    val low = "attrs" -> attrs(col(0, 1, 5))
    assert(both("attrs.level > 9", low) === (F, F))
    assert(both("attrs.LEVEL > 9", low) === (F, F))
    assert(spec("attrs.level > 4", ansi = true, low) === TF)
    assert(spec("attrs.level > 9", ansi = true, "attrs" -> attrs(col(3, 1, 5))) === bool(f = true, t = false, nullable = true))
    assert(spec("attrs.inner.x = 3", ansi = true, "attrs" -> attrs(col(0, 1, 5), col(0, 4L, 8L))) === F)
    assert(spec("attrs.inner.x = 5", ansi = true, "attrs" -> attrs(col(0, 1, 5), col(0, 4L, 8L))) === TF)
    // Field not in the stats, column without stats: anything.
    val partial = "attrs" -> ColumnStats(0, None, None, Some(StructStats(Map("level" -> col(0, 1, 5)))))
    assert(spec("attrs.inner.x = 3", ansi = true, partial) === bool(f = true, t = true, nullable = true))
    assert(spec("attrs.level > 9", ansi = true) === bool(f = true, t = true, nullable = true))
    // A union of struct specs (no ordering for their fields) widens the fields, it does not fail.
    assert(spec("coalesce(attrs, attrs).level > 9", ansi = true, low) === F)
    assert(spec("if(attrs.level > 2, attrs, attrs).level > 9", ansi = true, low) === TF)
  }

  test("element_at and [] on arrays: ANSI errors from the size range") {
    val always = "tags" -> tags(1, 3, col(0, str("a"), str("m")))
    val maybeEmpty = "tags" -> tags(0, 3, col(0, str("a"), str("m")))
    assert(both("element_at(tags, 1) = 'x'", always) === (F, F))
    assert(both("element_at(tags, -1) = 'x'", always) === (F, F))
    assert(both("element_at(tags, 1) = 'b'", always) === (TF, TF))
    // An index that may be past the end raises under ANSI and is null otherwise.
    assert(both("element_at(tags, 1) = 'x'", maybeEmpty) ===
      (bool(f = true, t = false, fallible = true), bool(f = true, t = false, nullable = true)))
    assert(both("element_at(tags, 4) = 'b'", always) ===
      (bool(f = false, t = false, fallible = true), bool(f = false, t = false, nullable = true)))
    assert(both("try_element_at(tags, 4) = 'b'", always) ===
      (bool(f = false, t = false, nullable = true), bool(f = false, t = false, nullable = true)))
    // Index 0 always raises, ANSI or not, even from try_element_at's point of view of range.
    assert(both("element_at(tags, 0) = 'b'", always)._2.fallible)
    assert(both("element_at(tags, 0) = 'b'", always)._1.fallible)
    assert(both("tags[0] = 'x'", always) === (F, F))
    assert(both("tags[2] = 'b'", always) ===
      (bool(f = true, t = true, fallible = true), bool(f = true, t = true, nullable = true)))
    assert(both("tags[-1] = 'b'", always) ===
      (bool(f = false, t = false, fallible = true), bool(f = false, t = false, nullable = true)))
    // A null element, a null array, an unknown array.
    assert(spec("element_at(tags, 1) = 'x'", ansi = true, "tags" -> tags(1, 3, col(4, str("a"), str("m")), nulls = 2)) ===
      bool(f = true, t = false, nullable = true))
    assert(spec("element_at(tags, 1) = 'x'", ansi = true) === bool(f = true, t = true, nullable = true, fallible = true))
    assert(spec("element_at(tags, 1) = 'x'", ansi = false) === bool(f = true, t = true, nullable = true))
    // Arrays of structs: the field of every element.
    val events = "events" -> ColumnStats(0, None, None, Some(ArrayStats(2, 2, 20, Some(ColumnStats(0, None, None,
      Some(StructStats(Map("k" -> col(0, 1, 3)))))))))
    assert(both("element_at(events, 2).k > 3", events) === (F, F))
    assert(both("element_at(events.k, 2) > 3", events) === (F, F))
    assert(both("events[1].k >= 3", events) === (TF, TF))
  }

  test("map values: missing keys are null, never an error") {
    val m = "m" -> map(1, 4, col(0, str("a"), str("c")), col(0, 10, 20))
    assert(both("element_at(m, 'k') = 15", m) ===
      (bool(f = false, t = false, nullable = true), bool(f = false, t = false, nullable = true)))
    assert(both("m['k'] = 15", m) === both("element_at(m, 'k') = 15", m))
    assert(both("m['b'] > 20", m) ===
      (bool(f = true, t = false, nullable = true), bool(f = true, t = false, nullable = true)))
    assert(spec("m['b'] > 19", ansi = true, m) === bool(f = true, t = true, nullable = true))
    // Every key is 'a' and no map is empty: the key is always found.
    val single = "m" -> map(1, 1, col(0, str("a"), str("a")), col(0, 10, 20))
    assert(spec("m['a'] < 30", ansi = true, single) === bool(f = false, t = true))
    assert(spec("m['a'] < 30", ansi = true, "m" -> map(0, 1, col(0, str("a"), str("a")), col(0, 10, 20))) ===
      bool(f = false, t = true, nullable = true))
  }

  test("array_contains: found only where elements may equal the value; null elements") {
    val t = "tags" -> tags(0, 3, col(0, str("a"), str("m")))
    assert(both("array_contains(tags, 'x')", t) === (F, F))
    assert(spec("array_contains(tags, 'b')", ansi = true, t) === TF)
    assert(spec("array_contains(tags, 'x')", ansi = true, "tags" -> tags(0, 3, col(3, str("a"), str("m")))) ===
      bool(f = true, t = false, nullable = true))
    // Every element is 'a', none null, no array empty: always found.
    assert(spec("array_contains(tags, 'a')", ansi = true, "tags" -> tags(1, 3, col(0, str("a"), str("a")))) ===
      bool(f = false, t = true))
    assert(spec("array_contains(tags, 'a')", ansi = true, "tags" -> tags(0, 3, col(0, str("a"), str("a")))) === TF)
  }

  test("size, cardinality and array_size: size ranges and the size of null") {
    val t = "tags" -> tags(0, 3, col(0, str("a"), str("m")), nulls = 1)
    val nullOrFalse = bool(f = true, t = false, nullable = true)
    // size(null) is null under ANSI, -1 otherwise (spark.sql.legacy.sizeOfNull defaults to true).
    assert(both("size(tags) > 3", t) === (nullOrFalse, F))
    assert(both("size(tags) < 0", t) === (nullOrFalse, TF))
    assert(spec("cardinality(tags) >= 0", ansi = true, t) === bool(f = false, t = true, nullable = true))
    // array_size is never legacy.
    assert(spec("array_size(tags) < 0", ansi = false, t) === nullOrFalse)
    assert(spec("size(m) = 5", ansi = true, "m" -> map(1, 4, col(0, str("a"), str("c")), col(0, 10, 20))) === F)
    withoutLegacySizeOfNull {
      assert(spec("size(tags) < 0", ansi = false, t) === nullOrFalse)
    }
  }

  private def withoutLegacySizeOfNull(body: => Unit): Unit = {
    spark.conf.set(SQLConf.LEGACY_SIZE_OF_NULL.key, "false")
    try body finally spark.conf.unset(SQLConf.LEGACY_SIZE_OF_NULL.key)
  }
}
