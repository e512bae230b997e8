package sparkpersist.cluster

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{DataType, IntegerType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/**
 * Prefix keys agree with Spark's order of UTF8_BINARY strings (`UTF8String.binaryCompare`), so
 * ranks by key are ranks by value; values sharing a long prefix get keys as distinct as their
 * tails, so a column of `customer-%06d` ids is laid out exactly as a column of the ints.
 */
class PrefixKeySuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  private def utf8(s: String): UTF8String = UTF8String.fromString(s)

  /** Strings from a few alphabets (ASCII, Latin-1, CJK, emoji, NUL), with or without a shared prefix of 0-20 chars. */
  private val strings: Gen[Seq[UTF8String]] = for {
    prefix <- Gen.oneOf(Gen.const(""), Gen.const("customer-"), Gen.const("https://example.com/a/"),
      Gen.stringOfN(12, Gen.oneOf('a', 'é', '中', '\u0000')), Gen.const("2026-11-28T"))
    shared <- Gen.choose(0.0, 1.0)
    values <- Gen.listOfN(60, for {
      own <- Gen.prob(shared)
      tail <- Gen.oneOf(Gen.const(""), Gen.alphaNumStr, Gen.stringOf(Gen.oneOf('a', 'b', 'é', 'ß', '中', '\u0000', 'z')),
        Gen.listOf(Gen.oneOf("🙂", "a", "\u00ff", "\u0100")).map(_.mkString))
      cut <- Gen.choose(0, prefix.length)
    } yield if (own) prefix + tail else prefix.take(cut) + tail)
  } yield values.map(utf8)

  test("keys and ranks are monotone in Spark's string order: empty, non-ASCII, shared prefixes past 8 bytes") {
    forAll(strings, strings, minSuccessful(200)) { (sample, values) =>
      val key = PrefixKey.of(sample)
      val ranks = ColumnRanks.of(StringType, sample.toIndexedSeq, 16)
      val all = sample ++ values
      for (a <- all; b <- all) {
        val c = a.binaryCompare(b)
        if (c < 0) assert(key.key(a) <= key.key(b), s"'$a' < '$b'")
        if (c == 0) assert(key.key(a) === key.key(b))
        val (ra, rb) = (ranks.coordinate(InternalRow(a), 0), ranks.coordinate(InternalRow(b), 0))
        if (c <= 0) assert(ra <= rb, s"'$a' -> $ra, '$b' -> $rb")
      }
      // Values of the sample differing within 8 bytes after the common prefix have distinct keys.
      val prefix = sample.map(_.getBytes).reduceOption((x, y) => x.zip(y).takeWhile { case (p, q) => p == q }.map(_._1))
        .getOrElse(Array.emptyByteArray).length
      val tails = sample.map(s => s.getBytes.drop(prefix).take(PrefixKey.Width).toSeq.reverse.dropWhile(_ == 0).reverse)
      assert(sample.map(key.key).distinct.size === tails.distinct.size)
    }
  }

  test("the common prefix is the sample's: a value outside it keys below or above every value inside it") {
    val key = PrefixKey.of(Seq("customer-000017", "customer-000123", "customer-099999").map(utf8))
    assert(key.key(utf8("customer-00001")) < key.key(utf8("customer-000017")))
    Seq("", "custom", "customer", "a", "customer-/").foreach(s => assert(key.key(utf8(s)) === Long.MinValue, s))
    Seq("zz", "customer-1", "customer-:", "é").foreach(s => assert(key.key(utf8(s)) === Long.MaxValue, s))
    // After "customer-0": 8 bytes of digits, zero-padded past the end.
    assert(key.key(utf8("customer-000017")) === (BigInt("3030303137000000", 16) - (BigInt(1) << 63)).toLong)
  }

  /** `n` rows of one id column of `distinct` values, as `customer-%06d` strings and as ints. */
  private def ids(n: Int, distinct: Int, seed: Long): (IndexedSeq[InternalRow], IndexedSeq[InternalRow]) = {
    val rnd = new scala.util.Random(seed)
    val ints = (0 until n).map(_ => rnd.nextInt(distinct))
    (ints.map(i => InternalRow(utf8(f"customer-$i%06d"), i % 7L)), ints.map(i => InternalRow(i, i % 7L)))
  }

  test("customer-%06d ids are laid out exactly as the ints: every layout, one and two columns, each row its bucket") {
    forAll(Gen.choose(2, 60), Gen.oneOf(100, 5000, 99999), Gen.long, minSuccessful(20)) { (parts, distinct, seed) =>
      val (strings, ints) = ids(6000, distinct, seed)
      for (kind <- LayoutKind.All; d <- 1 to 2) {
        def layout(rows: IndexedSeq[InternalRow], t: DataType): Layout =
          kind.fromSample(rows.take(3000), 0 until d, IndexedSeq(t, LongType).take(d), parts)
        val (s, i) = (layout(strings, StringType), layout(ints, IntegerType))
        assert(s.buckets === i.buckets)
        assert(strings.map(s.bucketOf) === ints.map(i.bucketOf), s"${kind.name}, $d columns, $parts parts")
      }
    }
  }

  test("deterministic: a sample in any order ranks every value alike") {
    val (strings, _) = ids(5000, 99999, 3)
    val values = strings.map(_.getUTF8String(0))
    val once = ColumnRanks.of(StringType, values, 16)
    val shuffled = ColumnRanks.of(StringType, new scala.util.Random(9).shuffle(values), 16)
    val probe = (0 until 100000 by 7).map(i => InternalRow(utf8(f"customer-$i%06d")))
    assert(probe.map(once.coordinate(_, 0)) === probe.map(shuffled.coordinate(_, 0)))
    assert(probe.map(once.coordinate(_, 0)).distinct.size > 4000)
  }
}
