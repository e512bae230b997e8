package sparkpersist.cluster

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/** Both curves are bijections of the grid onto `0 until 2^(n * bits)`; Hilbert's steps are unit steps. */
class CurveSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  /** Every cell of an n-dimensional grid of `2^bits` per side, as coordinates. */
  private def cells(n: Int, bits: Int): Seq[Array[Int]] =
    (0 until n).foldLeft(Seq(Array.emptyIntArray)) { (acc, _) =>
      acc.flatMap(c => (0 until (1 << bits)).map(c :+ _))
    }

  for ((n, bits) <- Seq((1, 5), (2, 4), (3, 3), (4, 2)); curve <- Curve.All) {
    test(s"${curve.name} maps the $n-dimensional grid of ${1 << bits} per side onto its positions") {
      val positions = cells(n, bits).map(curve.position(_, bits))
      assert(positions.sorted === (0L until (1L << (n * bits))))
    }
  }

  for ((n, bits) <- Seq((2, 5), (3, 3), (4, 2))) {
    test(s"consecutive Hilbert positions are neighbouring cells ($n dimensions, $bits bits)") {
      val byPosition = cells(n, bits).map(c => Hilbert.position(c, bits) -> c).sortBy(_._1).map(_._2)
      byPosition.sliding(2).foreach { case Seq(a, b) =>
        assert(a.zip(b).map { case (x, y) => math.abs(x - y) }.sum === 1, s"${a.mkString(",")} -> ${b.mkString(",")}")
      }
    }
  }

  test("Z-order interleaves the coordinates' bits, the first coordinate's highest") {
    assert(ZOrder.position(Array(0x2, 0x1), 2) === 0x9L) // bits: x1 y0 x0 y1 = 1001
    assert(ZOrder.position(Array(1, 0, 0), 1) === 4L)
    forAll(Gen.listOfN(3, Gen.choose(0, (1 << 16) - 1)), Gen.listOfN(3, Gen.choose(0, (1 << 16) - 1))) { (a, b) =>
      // Z-order is monotone in each coordinate.
      val lower = a.zip(b).map { case (x, y) => math.min(x, y) }.toArray
      val upper = a.zip(b).map { case (x, y) => math.max(x, y) }.toArray
      assert(ZOrder.position(lower, 16) <= ZOrder.position(upper, 16))
    }
  }

  test("positions fit a non-negative long at the most bits per dimension; the caller's coordinates are kept") {
    for (n <- 1 to 4; curve <- Curve.All) {
      val bits = Curve.bitsFor(n)
      val top = Array.fill(n)((1 << bits) - 1)
      val p = curve.position(top, bits)
      assert(p >= 0 && p < (1L << (n * bits)))
      assert(top.forall(_ == (1 << bits) - 1))
    }
    assert(Curve.bitsFor(4) === 15 && Curve.bitsFor(2) === 16)
    assert(intercept[IllegalArgumentException](Hilbert.position(Array(16), 4)).getMessage.contains("outside"))
    assert(intercept[IllegalArgumentException](Curve.named("peano")).getMessage.contains("hilbert or zorder"))
    assert(Curve.named(" ZOrder ") === ZOrder)
  }
}
