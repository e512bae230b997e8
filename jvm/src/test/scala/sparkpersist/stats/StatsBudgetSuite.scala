package sparkpersist.stats

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import sparkpersist.PersistConf
import sparkpersist.schema.{ColumnDef, ShardSchema}

class StatsBudgetSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  private def utf8(s: String) = UTF8String.fromString(s)
  private def strings(nulls: Long, lo: String, hi: String) = ColumnStats(nulls, Some(utf8(lo)), Some(utf8(hi)))
  private def range(lo: Any, hi: Any) = ColumnStats(0, Some(lo), Some(hi))
  private def schemaOf(fields: (String, DataType)*) =
    ShardSchema.fromStruct(StructType(fields.map { case (n, t) => StructField(n, t) }))
  private def size(schema: ShardSchema, stats: PartStats) = new StatsBudget(schema, Set.empty, 1).encodedSize(stats)

  private val flat = schemaOf("id" -> LongType, "s" -> StringType, "event_ts" -> TimestampType, "b" -> BinaryType)
  private val longStrings = PartStats(100, 4096, Map(
    1 -> range(1L, 100L), 2 -> strings(3, "a" * 40, "m" * 40), 3 -> range(10L, 20L)))

  test("stats that fit come back as they are (one encoding); 0 disables the budget") {
    val fits = new StatsBudget(flat, Set.empty, size(flat, longStrings))
    assert(fits(longStrings) eq longStrings)
    assert(new StatsBudget(flat, Set.empty, 0)(longStrings) eq longStrings)
    val e = intercept[IllegalArgumentException](new StatsBudget(flat, Set.empty, -1))
    assert(e.getMessage === "requirement failed: A stats budget is at least 0 bytes (0: no budget), got -1")
    val conf = intercept[IllegalArgumentException](PersistConf.StatsBudgetBytes.parseChecked("-5"))
    assert(conf.getMessage.startsWith(
      "[PERSIST_INVALID_CONF] Invalid value '-5' for spark.sparkpersist.stats.budgetBytes: requirement failed: must be at least 0."))
    assert(PersistConf.StatsBudgetBytes.default === 1536L)
  }

  test("step 0 drops the cast stats of JSON places too, before any bound is cut") {
    val schema = schemaOf("payload" -> VariantType, "s" -> StringType)
    val casts = CastStats("UTC", CastRange(3, Some(1L), Some(9L)), CastRange(3, Some(1L), Some(9L)),
      CastRange(3, Some(new java.math.BigDecimal(1)), Some(new java.math.BigDecimal(9))), CastRange.none,
      CastRange.none, CastRange.none, 0)
    def payload(c: Option[CastStats]) = {
      val ts = JsonStats.empty.copy(count = 3, strings = JsonScalarStats(3, Some(utf8("1")), Some(utf8("9"))), casts = c)
      ColumnStats(0, None, None, Some(JsonStats.empty.copy(count = 3, objects = JsonObjectStats(3, Map("ts" -> ts)))))
    }
    val full = PartStats(3, 100, Map(1 -> payload(Some(casts)), 2 -> strings(0, "a" * 40, "b" * 40)))
    val expected = full.copy(columns = full.columns.updated(1, payload(None)), trimmed = Set(1))
    assert(new StatsBudget(schema, Set.empty, size(schema, expected))(full) === expected)
    assert(size(schema, expected) < size(schema, full))
  }

  test("the filters of JSON places are dropped first, one by one, the largest first, not counted as trimming") {
    val schema = schemaOf("payload" -> VariantType, "s" -> StringType)
    def filter(n: Long) = Some(MembershipFilter.of((1L to n).map(MembershipFilter.hash).sorted.toArray))
    def payload(kinds: Option[MembershipFilter], tags: Option[MembershipFilter], codes: Option[MembershipFilter]) = {
      val kind = JsonStats.empty.copy(count = 3, strings = JsonScalarStats(3, Some(utf8("a")), Some(utf8("z")), kinds))
      val tag = JsonStats.empty.copy(count = 2, strings = JsonScalarStats(2, Some(utf8("b")), Some(utf8("c")), tags))
      val code = JsonStats.empty.copy(count = 3, numbers = JsonNumberStats(3, Some(java.math.BigDecimal.ONE),
        Some(java.math.BigDecimal.TEN), integral = true, codes))
      ColumnStats(0, None, None, Some(JsonStats.empty.copy(count = 3, objects = JsonObjectStats(3, Map("kind" -> kind,
        "code" -> code, "tags" -> JsonStats.empty.copy(count = 3, arrays = JsonArrayStats(3, 0, 2, Some(tag))))))))
    }
    val full = PartStats(3, 100, Map(1 -> payload(filter(40), filter(3), filter(5)), 2 -> strings(0, "a", "b")))
    assert(MemberPieces.of(full.columns(1)).map(_.bytes).sorted === Seq(3, 5, 40).map(n => MembershipCodec.encode(filter(n).get).length))
    assert(MemberPieces.removed(full.columns(1)) === payload(None, None, None))
    assert(!MemberPieces.in(payload(None, None, None)))
    // Room for all but the largest filter: only that one goes; room for none: all go, the stats untrimmed.
    val largestGone = full.copy(columns = full.columns.updated(1, payload(None, filter(3), filter(5))))
    assert(new StatsBudget(schema, Set.empty, size(schema, largestGone))(full) === largestGone)
    val allGone = full.copy(columns = full.columns.updated(1, payload(None, None, None)))
    assert(new StatsBudget(schema, Set.empty, size(schema, allGone))(full) === allGone)
    assert(size(schema, allGone) < size(schema, largestGone))
  }

  test("step 1: long string bounds are cut to the longest cap that fits (40: 30, 22, 16, ...)") {
    def capped(n: Int) = longStrings.copy(
      columns = longStrings.columns.updated(2, strings(3, "a" * n, "m" * (n - 1) + "n")), trimmed = Set(2))
    // 8 characters less in each bound, and the column's entry length drops below 64 (a 1-byte varint).
    assert(size(flat, capped(30)) === size(flat, capped(22)) + 16 + 1)
    assert(new StatsBudget(flat, Set.empty, size(flat, capped(22)))(longStrings) === capped(22))
    assert(new StatsBudget(flat, Set.empty, size(flat, capped(22)) - 1)(longStrings) === capped(16))
    assert(new StatsBudget(flat, Set.empty, size(flat, longStrings) - 1)(longStrings) === capped(30))
    assert(new StatsBudget(flat, Set.empty, size(flat, capped(1)))(longStrings) === capped(1))
  }

  test("step 1: an upper bound without a bumped prefix (U+10FFFF, 0xFF) is dropped; binary is cut by bytes") {
    val max = new String(Character.toChars(Character.MAX_CODE_POINT))
    val stats = PartStats(5, 50, Map(
      2 -> strings(0, "b" * 20, max * 20),
      4 -> range(Array.fill[Byte](20)(1), Array.fill[Byte](10)(2) ++ Array.fill[Byte](10)(-1))))
    val budget = new StatsBudget(flat, Set.empty, size(flat, stats) - 1)
    assert(budget(stats) === PartStats(5, 50, Map(
      2 -> ColumnStats(0, Some(utf8("b" * 15)), None),
      4 -> range(Array.fill[Byte](15)(1), Array.fill[Byte](9)(2) :+ 3.toByte)), trimmed = Set(2, 4)))
  }

  test("step 1 reaches strings inside nested stats, never collated bounds; caps widen only") {
    val struct = StructType(Seq(StructField("a", StringType), StructField("l", StringType("UTF8_LCASE"))))
    val json = JsonStats.empty.copy(count = 2, strings = JsonScalarStats(2, Some(utf8("xyzzy")), Some(utf8("xyzzz"))),
      objects = JsonObjectStats(1, Map("k" -> JsonStats.empty.copy(count = 1,
        strings = JsonScalarStats(1, Some(utf8("hello")), Some(utf8("help!")))))))
    val stats = ColumnStats(0, None, None, Some(StructStats(Map(
      "a" -> strings(1, "abcdef", "abczzz").copy(nested = Some(json)),
      "l" -> strings(0, "ABCDEF", "abcdef")))))
    val capped = BoundCap(stats, struct, 3)
    val cappedJson = JsonStats.empty.copy(count = 2, strings = JsonScalarStats(2, Some(utf8("xyz")), Some(utf8("xy{"))),
      objects = JsonObjectStats(1, Map("k" -> JsonStats.empty.copy(count = 1,
        strings = JsonScalarStats(1, Some(utf8("hel")), Some(utf8("hem")))))))
    assert(capped === ColumnStats(0, None, None, Some(StructStats(Map(
      "a" -> strings(1, "abc", "abd").copy(nested = Some(cappedJson)),
      "l" -> strings(0, "ABCDEF", "abcdef"))))))
    assert(BoundCap.longest(stats, struct) === 6)
    assert(BoundCap.longest(capped, struct) === 3) // collated bounds are neither counted nor cut
    assert(Widening.column(stats, capped, struct, "c") === Nil)
  }

  test("nested pieces: post-order indices, depths, and dropping any of them") {
    val leaf = JsonStats.empty.copy(count = 1, booleans = JsonScalarStats(1, Some(false), Some(true)))
    val mid = JsonStats.empty.copy(count = 2, strings = JsonScalarStats(2, Some(utf8("x")), Some(utf8("yz"))),
      objects = JsonObjectStats(1, Map("bb" -> leaf)))
    val root = JsonStats.empty.copy(count = 3,
      numbers = JsonNumberStats(3, Some(java.math.BigDecimal.ONE), Some(java.math.BigDecimal.TEN), integral = true),
      objects = JsonObjectStats(2, Map("a" -> mid)), arrays = JsonArrayStats(1, 0, 2, Some(JsonStats.empty)))
    val column = ColumnStats(0, None, None, Some(root))
    assert(NestedPieces.list(7, column) === Seq(
      Piece(7, 0, 1, 23), // root number bounds: "1", "10"
      Piece(7, 1, 3, 29), // bb's boolean bounds
      Piece(7, 2, 2, 26), // key "bb"
      Piece(7, 3, 2, 23), // a's string bounds
      Piece(7, 4, 1, 25), // key "a"
      Piece(7, 5, 1, 24))) // the array elements
    def json(c: ColumnStats) = c.nested.get.asInstanceOf[JsonStats]
    assert(json(NestedPieces.drop(column, Set(2))) ===
      root.copy(objects = JsonObjectStats(2, Map("a" -> mid.copy(objects = JsonObjectStats(1, Map.empty))))))
    assert(json(NestedPieces.drop(column, Set(0, 1, 5))) === root.copy(
      numbers = JsonNumberStats(3, None, None, integral = true),
      objects = JsonObjectStats(2, Map("a" -> mid.copy(objects = JsonObjectStats(1, Map("bb" ->
        leaf.copy(booleans = JsonScalarStats(1, None, None))))))),
      arrays = JsonArrayStats(1, 0, 2, None)))
    assert(json(NestedPieces.drop(column, Set(4, 3))) === root.copy(objects = JsonObjectStats(2, Map.empty)))
    val struct = ColumnStats(1, None, None, Some(StructStats(Map("f" -> ColumnStats(0, Some(1), Some(2),
      Some(ArrayStats(1, 2, 3, Some(ColumnStats(0, None, None)))))))))
    assert(NestedPieces.list(1, struct).map(p => (p.index, p.depth)) === Seq((0, 2), (1, 2), (2, 1)))
    assert(NestedPieces.drop(struct, Set(1)) === ColumnStats(1, None, None, Some(StructStats(Map(
      "f" -> ColumnStats(0, Some(1), Some(2), Some(ArrayStats(1, 2, 3, None))))))))
  }

  private def num(count: Long, lo: String, hi: String) =
    JsonNumberStats(count, Some(new java.math.BigDecimal(lo)), Some(new java.math.BigDecimal(hi)), integral = true)
  private def noBounds(j: JsonStats) = j.copy(numbers = j.numbers.copy(lower = None, upper = None))
  private def objectOf(count: Long, keys: (String, JsonStats)*) =
    JsonStats.empty.copy(count = count, objects = JsonObjectStats(count, keys.toMap))

  test("step 2: nested pieces go deepest first, the largest first among one depth") {
    val schema = schemaOf("id" -> LongType, "doc" -> VariantType)
    val inner = JsonStats.empty.copy(count = 10, numbers = num(10, "1", "2"))
    val small = JsonStats.empty.copy(count = 10, numbers = num(10, "3", "4"))
    val big = JsonStats.empty.copy(count = 10, numbers = num(10, "1" * 30, "9" * 30))
    val deep = objectOf(10, "inner" -> inner)
    def doc(root: JsonStats, trimmed: Set[Int] = Set(2)) =
      PartStats(10, 100, Map(1 -> range(1L, 10L), 2 -> ColumnStats(0, None, None, Some(root))), trimmed)
    val stats = doc(objectOf(10, "small" -> small, "big" -> big, "deep" -> deep), Set.empty)
    // In order: inner's bounds (depth 3); big's bounds, the key inner, small's bounds (depth 2); ...
    val first = doc(objectOf(10, "small" -> small, "big" -> big, "deep" -> objectOf(10, "inner" -> noBounds(inner))))
    val second = doc(objectOf(10, "small" -> small, "big" -> noBounds(big), "deep" -> objectOf(10, "inner" -> noBounds(inner))))
    val third = doc(objectOf(10, "small" -> small, "big" -> noBounds(big), "deep" -> objectOf(10)))
    val fourth = doc(objectOf(10, "small" -> noBounds(small), "big" -> noBounds(big), "deep" -> objectOf(10)))
    Seq(first, second, third, fourth).sliding(2).foreach { case Seq(a, b) => assert(size(schema, a) > size(schema, b)) }
    val budget = (bytes: Long) => new StatsBudget(schema, Set.empty, bytes)(stats)
    assert(budget(size(schema, first)) === first)
    assert(budget(size(schema, first) - 1) === second)
    assert(budget(size(schema, second)) === second)
    assert(budget(size(schema, third)) === third)
    assert(budget(size(schema, third) - 1) === fourth)
    // Everything nested dropped is still too much: then whole columns, the doc (largest) first.
    val bare = doc(objectOf(10))
    assert(budget(size(schema, bare) - 1) === PartStats(10, 100, Map(1 -> range(1L, 10L)), Set(2)))
  }

  test("adversarial JSON (1,000 levels, 5,000 keys, mixed kinds) fits the default budget and only widens") {
    val schema = schemaOf("id" -> LongType, "event_ts" -> TimestampType, "doc" -> VariantType, "raw" -> StringType)
    val text = (c: Char) => Some(utf8(c.toString * 100))
    val levels = (1 to 1000).foldLeft(JsonStats.empty.copy(count = 1, jsonNulls = 1)) { (below, i) =>
      JsonStats.empty.copy(count = 6, jsonNulls = 1, numbers = num(2, "-1", i.toString),
        strings = JsonScalarStats(1, text('a'), text('z')), objects = JsonObjectStats(2, Map("k" -> below)))
    }
    val mixed = JsonStats(10, 1, JsonScalarStats(1, Some(false), Some(true)), num(2, "0.5", "1e40"),
      JsonScalarStats(1, text('b'), text('y')), JsonObjectStats(2, Map("x" -> JsonStats.empty.copy(count = 1, jsonNulls = 1))),
      JsonArrayStats(2, 0, 5, Some(JsonStats.empty.copy(count = 4, others = 1,
        arrays = JsonArrayStats(3, 1, 2, Some(JsonStats.empty.copy(count = 3, strings = JsonScalarStats(3, text('c'), text('d')))))))),
      others = 1)
    val keys = objectOf(5000, (0 until 5000).map(i => s"key_$i" -> mixed): _*)
    val stats = PartStats(1000, 1 << 20, Map(1 -> range(1L, 1000L), 2 -> range(5L, 6L),
      3 -> ColumnStats(0, None, None, Some(levels)), 4 -> strings(0, "{" * 200, "{}" * 100).copy(nested = Some(keys))))
    val budget = new StatsBudget(schema, Set.empty, PersistConf.StatsBudgetBytes.default)
    assert(budget.encodedSize(stats) > 100000)
    val result = budget(stats)
    assert(budget.encodedSize(result) <= PersistConf.StatsBudgetBytes.default)
    assert(Widening.problems(stats, result, schema) === Nil)
    assert(result.columns(2) === stats.columns(2))
    assert(result.trimmed === Set(3, 4))
    // The deepest levels went first: what is left of the 1,000 levels is their top.
    def depth(j: JsonStats): Int = j.objects.keys.get("k").fold(0)(depth(_) + 1)
    assert(result.columns.get(3).forall(_.nested.forall(n => depth(n.asInstanceOf[JsonStats]) < 1000)))
  }

  private val wide = schemaOf("a" -> LongType, "b" -> DecimalType(38, 0), "c" -> IntegerType,
    "event_ts" -> TimestampType, "updated_at" -> LongType, "k" -> DecimalType(38, 0))
  private val big = Decimal(BigDecimal("9" * 38))
  private val wideStats = PartStats(9, 900, Map(1 -> range(1L, 2L), 2 -> range(big, big), 3 -> range(1, 2),
    4 -> range(1L, 2L), 5 -> range(5L, 6L), 6 -> range(big, big)))
  private def without(ids: Int*) = wideStats.copy(columns = wideStats.columns -- ids, trimmed = ids.toSet)

  test("step 3: whole columns go largest first; kept and time-like columns only once nothing else is left") {
    val budget = (bytes: Long) => new StatsBudget(wide, Set(6), bytes)
    assert(budget(wide.columns.size)(wideStats) === without(1, 2, 3, 4, 5, 6))
    assert(budget(size(wide, without(2)))(wideStats) === without(2))
    assert(budget(size(wide, without(2)) - 1)(wideStats) === without(1, 2))
    assert(budget(size(wide, without(1, 2, 3)))(wideStats) === without(1, 2, 3))
    assert(budget(size(wide, without(1, 2, 3)) - 1)(wideStats) === without(1, 2, 3, 6))
    assert(budget(size(wide, without(1, 2, 3, 6)) - 1)(wideStats) === without(1, 2, 3, 4, 6))
    // Without the keep option, k is just the largest column.
    assert(new StatsBudget(wide, Set.empty, size(wide, without(2, 6)))(wideStats) === without(2, 6))
  }

  test("time-like columns: by type or by name") {
    def timeLike(name: String, dt: DataType = StringType) = StatsBudget.isTimeLike(ColumnDef(1, name, dt, nullable = true))
    assert(Seq("event_ts", "Created_AT", "time", "update_time", "LastTimestamp").forall(timeLike(_)))
    assert(Seq(DateType, TimestampType, TimestampNTZType).forall(timeLike("x", _)))
    assert(!Seq("ts", "at", "timestamps", "status", "times", "format").exists(timeLike(_)))
  }

  private val ids = StatsGen.schema.columns.map(_.id)
  private val protectedBy = (keep: Set[Int]) => new StatsBudget(StatsGen.schema, keep, 1).protectedIds

  test("random stats and budgets: fit when possible, only widen, mark what changed, spare protected columns") {
    var trimmedParts = 0
    forAll(StatsGen.part(StatsGen.schema, depth = 3), Gen.someOf(ids), Gen.choose(1L, 3000L),
      minSuccessful(300)) { (stats, keep, budgetBytes) =>
      val budget = new StatsBudget(StatsGen.schema, keep.toSet, budgetBytes)
      val result = budget(stats)
      val floor = budget.encodedSize(PartStats(stats.rowCount, stats.bytes, Map.empty, stats.trimmed ++ stats.columns.keySet))
      if (floor <= budgetBytes) assert(budget.encodedSize(result) <= budgetBytes)
      if (budget.encodedSize(stats) <= budgetBytes) assert(result eq stats)
      assert(Widening.problems(stats, result, StatsGen.schema) === Nil)
      assert(budget.encodedSize(result) === BinaryStatsCodec(StatsGen.schema).encode(result).length)
      // Dropping a membership filter of a column not named as an index is not trimming (AutoIndex).
      val changed = stats.columns.keySet.filter(id =>
        !result.columns.get(id).map(MemberPieces.removed).contains(MemberPieces.removed(stats.columns(id))))
      assert(result.trimmed === stats.trimmed ++ changed)
      if (changed.exists(budget.protectedIds)) {
        assert(result.columns.keySet.subsetOf(budget.protectedIds), "a protected column was trimmed first")
      }
      if (changed.nonEmpty) trimmedParts += 1
    }
    assert(trimmedParts > 100)
    assert(protectedBy(Set(3)) === Set(2, 3, 4, 13))
  }
}
