package sparkpersist.util

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class LongHashSetSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  private val values: Gen[Long] = Gen.oneOf(Gen.choose(-50L, 50L), Gen.long, Gen.oneOf(0L, Long.MinValue, Long.MaxValue, -1L))

  test("holds exactly what was added, through growth, for any values") {
    forAll(Gen.listOf(values), Gen.listOf(values)) { (added, probed) =>
      val set = new LongHashSet
      added.foreach(set.add)
      assert(set.size === added.distinct.size)
      (added ++ probed).foreach(v => assert(set.contains(v) === added.contains(v), v))
    }
  }

  test("arithmetic progressions and powers of two (keys of a MERGE, ids by stride) stay exact") {
    for (stride <- Seq(1L, 100L, 1024L, 1L << 32)) {
      val set = new LongHashSet
      (0L until 100000L).foreach(i => set.add(7 + i * stride))
      assert(set.size === 100000)
      assert((0L until 100000L).forall(i => set.contains(7 + i * stride)))
      assert((0L until 100000L).count(i => set.contains(8 + i * stride)) === (if (stride == 1L) 99999 else 0))
    }
  }
}
