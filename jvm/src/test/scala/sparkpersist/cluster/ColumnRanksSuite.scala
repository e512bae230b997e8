package sparkpersist.cluster

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/** Coordinates follow Spark's order of each type, nulls first, spread over the whole axis. */
class ColumnRanksSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  private def coordinate(ranks: ColumnRanks, v: Any): Int = ranks.coordinate(InternalRow(v), 0)

  private val doubles = Gen.oneOf(Gen.choose(-1e6, 1e6), Gen.oneOf(Double.NaN, -0.0, 0.0, Double.PositiveInfinity,
    Double.NegativeInfinity, Double.MinValue))

  test("doubles: coordinates are monotone in Spark's order (NaN greatest, -0.0 equal to 0.0)") {
    forAll(Gen.listOfN(200, doubles), Gen.listOfN(50, doubles), Gen.choose(2, 16)) { (sample, values, bits) =>
      val ranks = ColumnRanks.of(DoubleType, sample.toIndexedSeq, bits)
      val ordering = TypeUtils.getInterpretedOrdering(DoubleType)
      for (a <- values; b <- values) {
        val (ca, cb) = (coordinate(ranks, a), coordinate(ranks, b))
        assert(ca >= 1 && ca < (1 << bits))
        if (ordering.compare(a, b) <= 0) assert(ca <= cb, s"$a -> $ca, $b -> $cb")
        if (ordering.compare(a, b) == 0) assert(ca == cb)
      }
    }
    assert(coordinate(ColumnRanks.of(DoubleType, IndexedSeq(1.0), 4), null) === 0)
  }

  test("strings order by their bytes; a column of few values spreads them over the axis, each its own cell") {
    val countries = IndexedSeq("US", "DE", "FR", "BR", "JP").map(UTF8String.fromString)
    val ranks = ColumnRanks.of(StringType, (0 until 100).map(i => countries(i % 5)), 16)
    val coords = countries.sortBy(_.toString).map(coordinate(ranks, _))
    assert(coords === coords.sorted && coords.distinct.size === 5)
    // Five values and the values below them: six ranks spread to the top of the axis.
    assert(coords.last === (1 << 16) - 1)
    assert(coordinate(ranks, UTF8String.fromString("AA")) < coords.head)
    assert(coordinate(ranks, UTF8String.fromString("ZZ")) === coords.last)
  }

  test("a column of many values gets quantiles: about equal sample counts per cell") {
    val sample = (0 until 10000).map(i => (i * 7919L) % 10000L)
    val ranks = ColumnRanks.of(LongType, sample, 4) // 14 boundaries, 16 cells
    val perCell = sample.groupBy(v => coordinate(ranks, v)).values.map(_.size)
    assert(perCell.size === 15)
    assert(perCell.max <= 2 * perCell.min, perCell)
  }
}
