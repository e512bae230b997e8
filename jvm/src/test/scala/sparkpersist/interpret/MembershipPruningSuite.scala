package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.schema.ShardSchema
import sparkpersist.stats.{ColumnStats, MembershipFilter, PartStats}

/** Point lookups decided by membership filters, on expressions built as the analyzer builds them. */
class MembershipPruningSuite extends AnyFunSuite {
  private val schema = ShardSchema.fromStruct(StructType(Seq(
    StructField("user_id", LongType), StructField("session", StringType), StructField("score", DoubleType),
    StructField("tag", StringType("UTF8_LCASE")))))
  private val Seq(userId, session, score, tag) = schema.columns.map(c => AttributeReference(c.name, c.dataType)())
  private val Seq(uid, sid, did, tid) = schema.columns.map(_.id)
  private val ids = AttributeMap(Seq(userId -> uid, session -> sid, score -> did, tag -> tid))

  private def filter(values: Any*) = Some(MembershipFilter.of(values.map(MembershipFilter.hash).distinct.sorted.toArray))
  private def str(s: String) = UTF8String.fromString(s)

  /** Users 10, 500 and 1000; sessions "a" and "zz"; scores -0.0 and NaN: min/max span everything. */
  private val part = PartStats(3, 100, Map(
    uid -> ColumnStats(0, Some(10L), Some(1000L), members = filter(10L, 500L, 1000L)),
    sid -> ColumnStats(1, Some(str("a")), Some(str("zz")), members = filter(str("a"), str("zz"))),
    did -> ColumnStats(0, Some(-0.0), Some(Double.NaN), members = filter(-0.0, Double.NaN))))

  private def keeps(condition: Expression, stats: PartStats = part): Boolean =
    PartFilter.compile(condition, ids, schema, MzNowSpec.at(0L)).keep(stats)

  test("=, IN, InSet and <=> skip parts whose filter rules every constant out") {
    assert(keeps(EqualTo(userId, Literal(500L))))
    assert(!keeps(EqualTo(userId, Literal(501L))))
    assert(!keeps(EqualTo(Literal(501L), userId)))
    assert(keeps(In(userId, Seq(Literal(1L), Literal(1000L)))))
    assert(!keeps(In(userId, Seq(Literal(11L), Literal(999L), Literal(null, LongType)))))
    assert(!keeps(InSet(userId, Set(11L, 12L, 13L))))
    assert(keeps(InSet(userId, Set(11L, 500L))))
    assert(!keeps(EqualNullSafe(userId, Literal(42L))))
    // <=> null is true on null rows: the filter (of non-null values) says nothing about it.
    assert(keeps(EqualNullSafe(session, Literal(null, StringType))))
    assert(!keeps(EqualTo(session, Literal("m"))))
    assert(keeps(EqualTo(session, Literal("zz"))))
    // Negated, OR-ed and AND-ed lookups compose through three-valued logic.
    assert(keeps(Not(EqualTo(userId, Literal(501L)))))
    assert(!keeps(Or(EqualTo(userId, Literal(501L)), EqualTo(session, Literal("m")))))
    assert(!keeps(And(EqualTo(userId, Literal(500L)), EqualTo(session, Literal("m")))))
  }

  test("-0.0 equals 0.0 and NaN equals NaN, as SQL compares them") {
    assert(keeps(EqualTo(score, Literal(0.0))))
    assert(keeps(EqualTo(score, Literal(Double.NaN))))
    assert(!keeps(EqualTo(score, Literal(1.5))))
  }

  test("decimals are looked up by value: a filter of 1.50 written at scale 2 finds 1.5000 at scale 4") {
    val widened = ShardSchema.fromStruct(StructType(Seq(StructField("price", DecimalType(14, 4)))))
    val price = AttributeReference("price", DecimalType(14, 4))()
    val pid = widened.columns.head.id
    val written = PartStats(2, 100, Map(pid -> ColumnStats(0, Some(Decimal("0.00")), Some(Decimal("9.00")),
      members = filter(Decimal("1.50"), Decimal("0.00"), Decimal("9.00")))))
    def keepsPrice(v: String) = PartFilter.compile(EqualTo(price, Literal(Decimal(v), DecimalType(14, 4))),
      AttributeMap(Seq(price -> pid)), widened, MzNowSpec.at(0L)).keep(written)
    assert(keepsPrice("1.5000"))
    assert(keepsPrice("0.0000"))
    assert(!keepsPrice("1.5100"))
    assert(!keepsPrice("15.0000"), "same digits, another scale")
    assert(MembershipFilter.hash(Decimal("1.0")) === MembershipFilter.hash(Decimal("1.00")))
    assert(MembershipFilter.hash(Decimal(BigDecimal("123456789012345678901234567.10"))) ===
      MembershipFilter.hash(Decimal(BigDecimal("123456789012345678901234567.1"))))
  }

  test("no filter, a coerced column or a non-constant keep the part") {
    assert(keeps(EqualTo(userId, Literal(501L)), part.copy(columns = part.columns.updated(uid, ColumnStats(0, Some(10L), Some(1000L))))))
    assert(keeps(EqualTo(Cast(userId, DoubleType), Literal(501.0))))
    assert(keeps(EqualTo(userId, Add(userId, Literal(1L)))))
  }

  test("a collated column's filter holds sort keys: 'A' finds the 'a' of a UTF8_LCASE part, 'b' does not") {
    val lcase = StringType("UTF8_LCASE")
    val keys = Some(MembershipFilter.of(Seq("a", "zz").map(v => MembershipFilter.hasher(lcase)(str(v))).sorted.toArray))
    val part = PartStats(3, 100, Map(tid -> ColumnStats(0, None, None, members = keys)))
    assert(keeps(EqualTo(tag, Literal.create("A", lcase)), part))
    assert(keeps(EqualTo(tag, Literal.create("ZZ", lcase)), part))
    assert(!keeps(EqualTo(tag, Literal.create("b", lcase)), part))
    assert(!keeps(In(tag, Seq(Literal.create("b", lcase), Literal.create("Z", lcase))), part))
  }

  test("stats that contradict their filter keep the part") {
    val contradicting = part.copy(columns = part.columns.updated(uid, ColumnStats(0, Some(7L), Some(7L), members = filter(8L))))
    assert(keeps(EqualTo(userId, Literal(7L)), contradicting))
  }

  test("array_contains skips parts whose element filter rules the constant out") {
    import sparkpersist.stats.ArrayStats
    val arrays = ShardSchema.fromStruct(StructType(Seq(StructField("tags", ArrayType(StringType)),
      StructField("scores", ArrayType(DoubleType)))))
    val Seq(tags, scores) = arrays.columns.map(c => AttributeReference(c.name, c.dataType)())
    val Seq(tagsId, scoresId) = arrays.columns.map(_.id)
    val byId = AttributeMap(Seq(tags -> tagsId, scores -> scoresId))
    def elements(nulls: Long, lo: Any, hi: Any, values: Any*) = ColumnStats(0, None, None,
      Some(ArrayStats(0, 3, 5, Some(ColumnStats(nulls, Some(lo), Some(hi), members = filter(values: _*))))))
    val stats = PartStats(3, 100, Map(tagsId -> elements(1, str("a"), str("zz"), str("a"), str("k"), str("zz")),
      scoresId -> elements(0, -0.0, 2.0, -0.0, 2.0)))
    def keepsArrays(condition: Expression) = PartFilter.compile(condition, byId, arrays, MzNowSpec.at(0L)).keep(stats)
    assert(keepsArrays(ArrayContains(tags, Literal("k"))))
    assert(!keepsArrays(ArrayContains(tags, Literal("m"))))
    // Where "m" is absent, array_contains is false, or null for arrays with a null element: NOT of it
    // is true on some rows, so the part stays.
    assert(keepsArrays(Not(ArrayContains(tags, Literal("m")))))
    assert(keepsArrays(ArrayContains(scores, Literal(0.0))), "-0.0 = 0.0")
    assert(!keepsArrays(ArrayContains(scores, Literal(1.0))))
    assert(!keepsArrays(ArrayContains(tags, Literal(null, StringType))), "null whatever the elements")
  }
}
