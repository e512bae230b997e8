package sparkpersist.consolidate

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.read.PartFile
import sparkpersist.schema.{ColumnDef, ShardSchema}
import sparkpersist.shard.PartMeta
import sparkpersist.stats.{ColumnStats, PartStats}

/** Key ranges and the part assignment of parallel consolidation, on hand-made part statistics. */
class KeyRangesSuite extends AnyFunSuite {

  private val d = ColumnDef(1, "d", DoubleType, nullable = true)
  private val s = ColumnDef(2, "s", StringType, nullable = true)
  private def utf8(x: String) = UTF8String.fromString(x)

  test("every value lies in one range, in Spark's order: nulls first, -0.0 with 0.0, NaN last") {
    val ranges = KeyRanges(d, IndexedSeq(0.0, 1.0, Double.NaN))
    val cases = Seq[(Any, Int)]((null, 0), Double.NegativeInfinity -> 0, -1e-300 -> 0, -0.0 -> 1, 0.0 -> 1,
      0.5 -> 1, 1.0 -> 2, Double.PositiveInfinity -> 2, Double.NaN -> 3)
    cases.foreach { case (v, i) => assert(ranges.rangeOf(v) === i, s"value $v") }
    assert(ranges.count === 4)
  }

  test("a span overlaps the ranges its values may fall in; a part without statistics, all of them") {
    val ranges = KeyRanges(d, IndexedSeq(0.0, 1.0, Double.NaN))
    def overlapped(span: KeySpan) = (0 until ranges.count).filter(ranges.overlaps(span, _))
    assert(overlapped(KeySpan(nulls = true, values = false, None, None)) === Seq(0))
    assert(overlapped(KeySpan(nulls = false, values = true, Some(-0.0), Some(0.0))) === Seq(1))
    assert(overlapped(KeySpan(nulls = true, values = true, Some(0.5), Some(Double.NaN))) === Seq(0, 1, 2, 3))
    assert(overlapped(KeySpan(nulls = false, values = true, Some(1.0), Some(1.0))) === Seq(2))
    assert(overlapped(KeySpan(nulls = false, values = true, None, Some(-5.0))) === Seq(0))
    assert(overlapped(KeySpan.Anything) === Seq(0, 1, 2, 3))
    // A truncated string span: lower a prefix, upper a bumped prefix, both still bracket the values.
    val strings = KeyRanges(s, IndexedSeq(utf8("b"), utf8("c")))
    val truncated = KeySpan(nulls = false, values = true, Some(utf8("b")), Some(utf8("c")))
    assert((0 until 3).filter(strings.overlaps(truncated, _)) === Seq(1, 2))
    assert(strings.rangeOf(utf8("bzzzz")) === 1 && strings.rangeOf(utf8("c")) === 2)
    assert(strings.rangeOf(utf8("a\uffff")) === 0)
  }

  private def part(key: String, rows: Long, retracts: Boolean, stats: Map[Int, ColumnStats]): PartMeta =
    PartMeta(key, rows, 1000, 1, 1, retracts, Some(PartStats(rows, 1000, stats)))

  private def longStats(lo: Long, hi: Long, nulls: Long = 0) = ColumnStats(nulls, Some(lo), Some(hi))

  private val ids = ShardSchema(IndexedSeq(ColumnDef(1, "id", LongType, nullable = true),
    ColumnDef(2, "x", LongType, nullable = true)), orderBy = Seq("id"))

  test("balanced ranges split the estimated rows evenly, at part bounds or numeric quantiles") {
    val id = ids.columns.head
    def mass(lo: Long, hi: Long, rows: Long) = KeyMass(KeySpan(nulls = false, values = true, Some(lo), Some(hi)), 0, rows)
    assert(KeyRanges.balanced(id, Seq(mass(0, 99, 100), mass(100, 199, 100)), 2).splits === Seq(100L))
    assert(KeyRanges.balanced(id, Seq(mass(0, 999, 1000)), 4).splits === Seq(250L, 500L, 750L))
    // Heavy nulls take a range of their own: the first split is the smallest value.
    val nulls = KeyMass(KeySpan(nulls = true, values = true, Some(10L), Some(19L)), 500, 10)
    assert(KeyRanges.balanced(id, Seq(nulls), 2).splits === Seq(10L))
    assert(KeyRanges.balanced(id, Seq(KeyMass(KeySpan.Anything, 0, 10)), 4).splits === Nil)
  }

  test("the plan keeps parts that cannot meet a retraction out of the merge and gives unknown parts to every task") {
    val old = part("old", 100, retracts = false, Map(1 -> longStats(0, 99)))
    val recent1 = part("recent1", 50, retracts = false, Map(1 -> longStats(100, 149)))
    val recent2 = part("recent2", 50, retracts = false, Map(1 -> longStats(150, 199)))
    val unknown = PartMeta("unknown", 50, 1000, 1, 1, hasRetractions = false, None)
    val retractions = part("retractions", 20, retracts = true, Map(1 -> longStats(140, 160)))
    val plan = ConsolidationPlan(
      IndexedSeq(IndexedSeq(old, recent1, recent2), IndexedSeq(unknown), IndexedSeq(retractions)), ids, 2)
    assert(plan.straight.map(_.key) === Seq("old"))
    assert(plan.tasks.map(_.runs.map(_.map(_.key))) === Seq(
      Seq(Seq("recent1"), Seq("unknown"), Seq("retractions")),
      Seq(Seq("recent2"), Seq("unknown"), Seq("retractions"))))
    assert(plan.tasks.map(_.share.describe) === Seq("range 0 of 2 key ranges of id", "range 1 of 2 key ranges of id"))
    assert(plan.describe === "2 consolidation tasks by 2 key ranges of id, 1 parts without retracted rows read straight")
  }

  test("the range column is the one that separates parts best; without any, hash buckets of whole rows") {
    // `id` is the same everywhere; `x` tells the parts apart.
    val a = part("a", 10, retracts = true, Map(1 -> longStats(5, 5), 2 -> longStats(0, 9)))
    val b = part("b", 10, retracts = true, Map(1 -> longStats(5, 5), 2 -> longStats(10, 19)))
    val byX = ConsolidationPlan(IndexedSeq(IndexedSeq(a), IndexedSeq(b)), ids, 2)
    assert(byX.describe.startsWith("2 consolidation tasks by 2 key ranges of x"))
    assert(byX.tasks.map(_.runs.flatten.map(_.key)) === Seq(Seq("a"), Seq("b")))
    val blind = Seq(a, b).map(_.copy(stats = None))
    val hashed = ConsolidationPlan(IndexedSeq(IndexedSeq(blind.head), IndexedSeq(blind(1))), ids, 3)
    assert(hashed.tasks.map(_.share) === (0 until 3).map(RowShare.Hash(_, 3, ids.dataSchema)))
    assert(hashed.tasks.forall(_.runs.flatten.map(_.key) == Seq("a", "b")))
    assert(ConsolidationPlan(IndexedSeq(IndexedSeq(a)), ids, 1).tasks === Seq(ConsolidationTask(IndexedSeq(IndexedSeq(a)), RowShare.All)))
  }

  test("a row outside its part's statistics fails the read instead of being lost") {
    val ranges = KeyRanges(ids.columns.head, IndexedSeq(100L))
    val share = RowShare.KeyRange(ranges, 0, 0, Map("p" -> KeySpan(nulls = false, values = true, Some(0L), Some(99L))))
    val file = PartFile("file:/p.parquet", 1, 1, key = "p")
    def rows(ids: Long*) = ids.iterator.map(i => InternalRow(i, 0L, 1L, 1L))
    assert(share.of(file, rows(1, 50, 99)).map(_.getLong(0)).toList === List(1, 50, 99))
    val e = intercept[PartStatsMismatch](share.of(file, rows(1, 150)).toList)
    assert(e.getMessage.startsWith("Part file:/p.parquet holds a row whose 'id' is 150, outside the part's statistics"))
    assert(RowShare.KeyRange(ranges, 1, 0, Map.empty).of(file.copy(key = "other"), rows(1, 150)).map(_.getLong(0)).toList === List(150))
  }

  test("a share keeps exactly the rows of its range, for keys compared as longs and as interpreted values") {
    val file = PartFile("file:/p.parquet", 1, 1, key = "p")
    def kept(column: ColumnDef, splits: IndexedSeq[Any], keys: Seq[Any]): Unit = {
      val ranges = KeyRanges(column, splits)
      (0 until ranges.count).foreach { i =>
        val share = RowShare.KeyRange(ranges, i, 0, Map.empty)
        val got = share.of(file, keys.iterator.map(k => InternalRow(k, 0L, 1L))).map(_.get(0, column.dataType)).toList
        assert(got === keys.filter(ranges.rangeOf(_) == i), s"${column.dataType} range $i")
      }
      assert((0 until ranges.count).map(i => keys.count(ranges.rangeOf(_) == i)).sum === keys.size)
    }
    kept(ColumnDef(1, "b", ByteType, nullable = true), IndexedSeq(-1.toByte, 5.toByte),
      Seq(null, Byte.MinValue, -1.toByte, 0.toByte, 5.toByte, Byte.MaxValue))
    kept(ColumnDef(1, "i", IntegerType, nullable = true), IndexedSeq(Int.MinValue, 0, Int.MaxValue),
      Seq(null, Int.MinValue, -1, 0, 1, Int.MaxValue - 1, Int.MaxValue))
    kept(ColumnDef(1, "day", DateType, nullable = true), IndexedSeq(-719162, 20000), Seq(null, -719163, -719162, 0, 19999, 20000))
    kept(ColumnDef(1, "ts", TimestampType, nullable = true), IndexedSeq(Long.MinValue + 1, 0L, Long.MaxValue),
      Seq(null, Long.MinValue, Long.MinValue + 1, -1L, 0L, Long.MaxValue - 1, Long.MaxValue))
    kept(s, IndexedSeq(utf8("b"), utf8("c")), Seq(null, utf8(""), utf8("a"), utf8("b"), utf8("bzz"), utf8("c"), utf8("\uffff")))
  }

  test("a null key in a part whose statistics say it has none fails the read, in both comparisons") {
    val file = PartFile("file:/p.parquet", 1, 1, key = "p")
    val noNulls = Map("p" -> KeySpan(nulls = false, values = true, None, None))
    Seq(ColumnDef(1, "id", LongType, nullable = true) -> 7L, s -> utf8("x")).foreach { case (column, value) =>
      val share = RowShare.KeyRange(KeyRanges(column, IndexedSeq(value)), 0, 0, noNulls)
      intercept[PartStatsMismatch](share.of(file, Iterator(InternalRow(null, 0L, 1L))).toList)
    }
  }
}
