package sparkpersist.cluster

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{DataType, DoubleType, LongType}
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/**
 * The grid layout meets the grid bound: a thin filter (one value) on any one of `d` clustering
 * columns meets at most [[GridLayout.reach]] of a window's `P` buckets, within 1.25x of
 * `ceil(P^(1-1/d))`, for random data; and its buckets hold about equal rows.
 */
class GridLayoutSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  private def bound(parts: Int, d: Int): Int = math.ceil(math.pow(parts, 1 - 1.0 / d) - 1e-9).toInt

  test("reach per column at the benchmark's part counts, against the grid bound ceil(P^(1-1/d))") {
    val table = for (p <- Seq(11, 40); d <- 1 to 3) yield (p, d, bound(p, d), GridLayout.reach(p, d))
    assert(table === Seq(
      (11, 1, 1, IndexedSeq(1)), (11, 2, 4, IndexedSeq(4, 3)), (11, 3, 5, IndexedSeq(6, 6, 4)),
      (40, 1, 1, IndexedSeq(1)), (40, 2, 7, IndexedSeq(7, 6)), (40, 3, 12, IndexedSeq(14, 12, 12))))
    // Once every column can be cut at least twice (fewer parts leave a column uncut: it meets all of them);
    // four columns cut in a fixed order reach up to 1.5x (P = 47: 24 against 18).
    for (d <- 1 to 4; p <- (1 << d) to 400) {
      val r = GridLayout.reach(p, d)
      val most = if (d <= 3) 1.25 else 1.5
      assert(r.size === d && r.max <= math.ceil(most * bound(p, d)), s"P = $p, d = $d: $r against ${bound(p, d)}")
    }
  }

  /** Rows of `d` columns: longs of `distinct` values each, or doubles (nearly all distinct). */
  private def rows(d: Int, n: Int, distinct: Int, seed: Long): (IndexedSeq[InternalRow], IndexedSeq[DataType]) = {
    val rnd = new scala.util.Random(seed)
    val types = (0 until d).map(i => if (i % 2 == 0) LongType else DoubleType)
    val data = (0 until n).map { _ =>
      InternalRow.fromSeq(types.map {
        case LongType => rnd.nextInt(distinct).toLong
        case _ => math.floor(rnd.nextGaussian() * distinct) / 7.0
      })
    }
    (data, types)
  }

  test("random data: a thin filter on each column meets at most reach(P, d) buckets; buckets hold about equal rows") {
    val cases = for {
      d <- Gen.choose(1, 3)
      parts <- Gen.oneOf(Gen.const(11), Gen.const(40), Gen.choose(2, 60))
      seed <- Gen.long
    } yield (d, parts, seed)
    forAll(cases, minSuccessful(30)) { case (d, parts, seed) =>
      // Distinct values well above the parts: no value holds more than a slab's share of rows.
      val (data, types) = rows(d, 6000, 100000, seed)
      val layout = GridLayout.fromSample(data.take(3000), (0 until d), types, parts)
      assert(layout.buckets === parts)
      val buckets = data.map(layout.bucketOf)
      assert(buckets.forall(b => b >= 0 && b < parts))
      val reach = GridLayout.reach(parts, d)
      for (c <- 0 until d) {
        val met = data.indices.groupBy(i => data(i).get(c, types(c))).values.map(_.map(buckets).distinct.size).max
        assert(met <= reach(c), s"column $c of $d, $parts parts: a value meets $met buckets, reach ${reach(c)}")
      }
      // Cut from a half sample: each bucket within 2x of an equal share, none empty.
      val sizes = buckets.groupBy(identity).values.map(_.size)
      assert(sizes.size === parts && sizes.max <= 2 * data.size / parts, sizes)
    }
  }

  test("a column of few values: each value lands in one slab; a frequent value takes the parts of the slabs it fills") {
    // Column 0: 4 values, one of them 70 % of the rows; column 1: many values.
    val rnd = new scala.util.Random(7)
    val data = (0 until 4000).map { i =>
      InternalRow(if (i % 10 < 7) 0L else (i % 10 - 6).toLong, rnd.nextInt(100000).toLong)
    }
    val layout = GridLayout.fromSample(data, IndexedSeq(0, 1), IndexedSeq(LongType, LongType), 16)
    val buckets = data.map(layout.bucketOf)
    val byValue = data.indices.groupBy(data(_).getLong(0)).map { case (v, is) => v -> is.map(buckets).distinct.sorted }
    // 4 slabs of 4 buckets: value 0 fills three of them and gets their 12 buckets; the rest share the last 4.
    assert(byValue(0L) === (0 until 12))
    assert(Seq(1L, 2L, 3L).flatMap(byValue).distinct.sorted === (12 until 16))
    // Thin filters on column 1 meet one bucket per slab: 2 (the 0 slab cut by 12 along column 1, the rest's by 4).
    val perUser = data.indices.groupBy(data(_).getLong(1)).values.map(_.map(buckets).distinct.size).max
    assert(perUser <= 2)
  }

  test("one column of few values: a value filling several slabs is one bucket; every value in one bucket") {
    val data = (0 until 4000).map(i => InternalRow(if (i % 4 == 0) 0L else (i % 20).toLong))
    val layout = GridLayout.fromSample(data, IndexedSeq(0), IndexedSeq(LongType), 40)
    val byValue = data.indices.groupBy(data(_).getLong(0)).map { case (v, is) => v -> is.map(i => layout.bucketOf(data(i))).distinct }
    assert(byValue.values.forall(_.size == 1))
    // 0 holds 25 % of the rows: it fills the first 10 slabs (its one bucket is the first); the other 15 values one slab or two each.
    assert(byValue(0L) === Seq(0))
    assert(byValue.values.flatten.toSet.size === 16)
  }
}
