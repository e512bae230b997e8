package sparkpersist.stats

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.{CalendarInterval, UTF8String}
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/**
 * Every collector against a brute-force computation over the same values: the exact min/max in
 * Spark's order (non-truncated types), the documented zero convention for floats, truncated bounds
 * that still bracket every value, and exact null counts. Values go through an UnsafeProjection
 * that reuses one buffer, as a write task's rows do.
 */
class StatsCollectorSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  import StatsCollectorSuite._

  implicit override val generatorDrivenConfig: PropertyCheckConfiguration =
    PropertyCheckConfiguration(minSuccessful = 200)

  private val BoundChars = 8

  /** Runs a collector over `values` (null = SQL NULL) of type `dt`, fed as reused UnsafeRows. */
  private def collect(dt: DataType, values: Seq[Any], boundChars: Int = BoundChars): ColumnStats = {
    val collector = StatsCollector.forType(dt, boundChars)
    val project = UnsafeProjection.create(Array[DataType](dt))
    values.foreach(v => collector.update(project(InternalRow(v)), 0))
    collector.result()
  }

  private def bruteForce(dt: DataType, values: Seq[Any]): (Long, Option[(Any, Any)]) = {
    val ord = TypeUtils.getInterpretedOrdering(dt)
    val nonNull = values.filter(_ != null)
    (values.size - nonNull.size, if (nonNull.isEmpty) None else Some((nonNull.min(ord), nonNull.max(ord))))
  }

  private def withNulls[T](g: Gen[T]): Gen[Seq[Any]] =
    Gen.listOf(Gen.frequency(1 -> Gen.const(null), 4 -> g))

  private val exactTypes: Seq[(DataType, Gen[Any])] = Seq(
    BooleanType -> Gen.oneOf(true, false),
    ByteType -> Gen.choose(Byte.MinValue, Byte.MaxValue),
    ShortType -> Gen.choose(Short.MinValue, Short.MaxValue),
    IntegerType -> Gen.choose(Int.MinValue, Int.MaxValue),
    LongType -> Gen.choose(Long.MinValue, Long.MaxValue),
    DateType -> Gen.choose(-800000, 800000),
    TimestampType -> Gen.choose(-62135596800000000L, 253402300799999999L),
    TimestampNTZType -> Gen.choose(-62135596800000000L, 253402300799999999L),
    DecimalType(10, 2) -> Gen.choose(-99999999.99, 99999999.99).map(d => Decimal(BigDecimal(d).setScale(2, BigDecimal.RoundingMode.DOWN), 10, 2)),
    DecimalType(38, 10) -> Gen.choose(Long.MinValue, Long.MaxValue).map(l => Decimal(BigDecimal(l) * BigDecimal("1234567.0123456789"), 38, 10)))

  for ((dt, gen) <- exactTypes) {
    test(s"$dt: exact min, max and null count") {
      forAll(withNulls(gen)) { values =>
        val (nulls, range) = bruteForce(dt, values)
        assert(collect(dt, values) === ColumnStats(nulls, range.map(_._1), range.map(_._2)))
      }
    }
  }

  for ((dt, gen) <- Seq[(DataType, Gen[Any])](DoubleType -> doubles, FloatType -> doubles.map(_.toFloat))) {
    test(s"$dt: min/max in Spark's order (NaN largest), zeros as -0.0 below and 0.0 above") {
      forAll(withNulls(gen)) { values =>
        val (nulls, range) = bruteForce(dt, values)
        val stats = collect(dt, values)
        assert(stats.nullCount === nulls)
        range match {
          case None => assert(stats.lower.isEmpty && stats.upper.isEmpty)
          case Some((min, max)) =>
            val ord = TypeUtils.getInterpretedOrdering(dt)
            val (lo, hi) = (stats.lower.get, stats.upper.get)
            assert(ord.compare(lo, min) === 0)
            assert(ord.compare(hi, max) === 0)
            // Zeros are recorded so that the bounds also hold in the IEEE total order.
            if (isZero(lo)) assert(signBit(lo), s"zero lower bound must be -0.0, was $lo")
            if (isZero(hi)) assert(!signBit(hi), s"zero upper bound must be 0.0, was $hi")
            values.filter(_ != null).foreach { v =>
              assert(totalCompare(lo, v) <= 0 && totalCompare(v, hi) <= 0, s"$v outside [$lo, $hi]")
            }
        }
      }
    }
  }

  test("double: the special values") {
    val nan = Double.NaN
    assert(collect(DoubleType, Seq(1.0, nan, -1.0)) === ColumnStats(0, Some(-1.0), Some(nan)))
    assert(collect(DoubleType, Seq(nan, nan, null)) === ColumnStats(1, Some(nan), Some(nan)))
    assert(collect(DoubleType, Seq(0.0, 0.0)) === ColumnStats(0, Some(-0.0), Some(0.0)))
    assert(collect(DoubleType, Seq(-0.0, -0.0)) === ColumnStats(0, Some(-0.0), Some(0.0)))
    assert(collect(DoubleType, Seq(-0.0, 5.0)) === ColumnStats(0, Some(-0.0), Some(5.0)))
    assert(collect(DoubleType, Seq(-3.0, 0.0)) === ColumnStats(0, Some(-3.0), Some(0.0)))
    assert(collect(DoubleType, Seq(Double.PositiveInfinity, Double.NegativeInfinity)) ===
      ColumnStats(0, Some(Double.NegativeInfinity), Some(Double.PositiveInfinity)))
    assert(collect(DoubleType, Seq(Double.PositiveInfinity, nan)) ===
      ColumnStats(0, Some(Double.PositiveInfinity), Some(nan)))
    assert(collect(FloatType, Seq(Float.NaN, -0.0f, Float.MinValue)) ===
      ColumnStats(0, Some(Float.MinValue), Some(Float.NaN)))
  }

  test("all-null and empty columns have no bounds") {
    assert(collect(LongType, Seq(null, null, null)) === ColumnStats(3, None, None))
    assert(collect(StringType, Seq()) === ColumnStats(0, None, None))
    assert(collect(BinaryType, Seq(null)) === ColumnStats(1, None, None))
  }

  test("string: bounds are prefixes of at most n code points that bracket every value") {
    forAll(withNulls(strings), Gen.choose(1, 12)) { (raw, n) =>
      val values = raw.map(s => if (s == null) null else UTF8String.fromString(s.asInstanceOf[String]))
      val (nulls, range) = bruteForce(StringType, values)
      val stats = collect(StringType, values, n)
      assert(stats.nullCount === nulls)
      range match {
        case None => assert(stats === ColumnStats(nulls, None, None))
        case Some((min: UTF8String, max: UTF8String)) =>
          val lo = stats.lower.get.asInstanceOf[UTF8String]
          assert(lo === (if (min.numChars <= n) min else min.substring(0, n)))
          stats.upper.map(_.asInstanceOf[UTF8String]) match {
            case Some(hi) =>
              assert(hi.isValid && hi.numChars <= math.max(n, max.numChars))
              if (max.numChars <= n) assert(hi === max)
              values.filter(_ != null).foreach { v =>
                val s = v.asInstanceOf[UTF8String]
                assert(lo.binaryCompare(s) <= 0 && s.binaryCompare(hi) <= 0, s"$s outside [$lo, $hi]")
              }
            case None =>
              assert(max.substring(0, n).toString.codePoints().allMatch(_ == Character.MAX_CODE_POINT))
          }
        case other => fail(s"unexpected $other")
      }
    }
  }

  test("string: 20k-character and non-ASCII values, exact truncated bounds") {
    val long = "m" * 20000
    val stats = collect(StringType, Seq(long, "é" * 30, "a😀" + "z" * 100, null).map(s => if (s == null) null else UTF8String.fromString(s)), 4)
    assert(stats === ColumnStats(1, Some(UTF8String.fromString("a😀zz")), Some(UTF8String.fromString("éééê"))))
    assert(collect(StringType, Seq(UTF8String.fromString(long)), 64) ===
      ColumnStats(0, Some(UTF8String.fromString("m" * 64)), Some(UTF8String.fromString("m" * 63 + "n"))))
  }

  test("string upper bound: carries past U+10FFFF, skips surrogates, or is absent") {
    val top = new String(Character.toChars(Character.MAX_CODE_POINT))
    def upper(s: String, n: Int) = Bounds.stringUpper(UTF8String.fromString(s), n).map(_.toString)
    assert(upper("ab" + top + "x", 3) === Some("ac"))
    assert(upper(top * 3, 2) === None)
    assert(upper("a\uD7FFb", 2) === Some("a\uE000"))
    assert(upper("a😀b", 2) === Some("a😁"))
    assert(upper("abc", 3) === Some("abc"))
  }

  test("binary: bounds bracket every value, exact when short, all-0xFF prefix has no upper") {
    forAll(withNulls(Gen.listOf(Gen.oneOf(Gen.const(-1.toByte), Gen.choose(Byte.MinValue, Byte.MaxValue))).map(_.toArray)), Gen.choose(1, 6)) { (values, n) =>
      val (nulls, range) = bruteForce(BinaryType, values)
      val stats = collect(BinaryType, values, n)
      assert(stats.nullCount === nulls)
      val ord = TypeUtils.getInterpretedOrdering(BinaryType)
      range.foreach { case (min: Array[Byte], max: Array[Byte]) =>
        assert(stats.lower.get.asInstanceOf[Array[Byte]].toSeq === min.take(n).toSeq)
        stats.upper match {
          case Some(hi) =>
            if (max.length <= n) assert(hi.asInstanceOf[Array[Byte]].toSeq === max.toSeq)
            values.filter(_ != null).foreach(v => assert(ord.lteq(v, hi) && ord.lteq(stats.lower.get, v)))
          case None => assert(max.take(n).forall(_ == -1.toByte))
        }
      case other => fail(s"unexpected $other")
      }
    }
    assert(Bounds.binaryUpper(Array[Byte](1, -1, -1, 7), 3).map(_.toSeq) === Some(Seq[Byte](2)))
  }

  test("types without bounds only count nulls") {
    assert(collect(CalendarIntervalType, Seq(new CalendarInterval(1, 2, 3L), null)) === ColumnStats(1, None, None))
  }

  test("collated strings: bounds in the collation's order, whole or absent past the cap") {
    def utf8s(vs: String*) = vs.map(v => if (v == null) null else UTF8String.fromString(v))
    def bounds(c: ColumnStats) = (c.lower.map(_.toString), c.upper.map(_.toString))
    // Binary order would give "B" < "a" < "c"; UTF8_LCASE compares lower case.
    assert(bounds(collect(StringType("UTF8_LCASE"), utf8s("c", "B", null, "a"))) === (Some("a"), Some("c")))
    // UTF8_BINARY_RTRIM: "b  " equals "b", and both exceed "a ".
    assert(bounds(collect(StringType("UTF8_BINARY_RTRIM"), utf8s("b  ", "a ", "b"))) === (Some("a "), Some("b  ")))
    // UNICODE (ICU root): a < A < b < B, accents after their base letter.
    assert(bounds(collect(StringType("UNICODE"), utf8s("b", "A", "á", "B"))) === (Some("A"), Some("B")))
    assert(bounds(collect(StringType("UNICODE_CI"), utf8s("abcd", "b", "zzzz"), boundChars = 3)) === (None, None),
      "a prefix is no ICU bound: longer bounds are left out")
    assert(bounds(collect(StringType("UNICODE_CI"), utf8s("abcd", "b", "zz"), boundChars = 3)) === (None, Some("zz")))
  }

  test("part stats: row count, per-column stats by id, time range and retractions") {
    val c = new PartStatsCollector(Array(7, 3), Array(LongType, StringType), TimeStamp.InRow(2, 3), 64)
    Seq[(Any, Any, Long, Long)]((5L, "b", 10L, 1L), (null, "a", 12L, 1L), (-2L, null, 11L, -1L)).foreach {
      case (l, s, t, d) => c.update(InternalRow(l, if (s == null) null else UTF8String.fromString(s.toString), t, d))
    }
    assert(c.minTime === 10L && c.maxTime === 12L && c.hasRetractions && c.nullCount(1) === 1)
    assert(c.result(123) === PartStats(3, 123, Map(
      7 -> ColumnStats(1, Some(-2L), Some(5L)),
      3 -> ColumnStats(1, Some(UTF8String.fromString("a")), Some(UTF8String.fromString("b"))))))
  }
}

object StatsCollectorSuite {
  val doubles: Gen[Double] = Gen.frequency(
    3 -> Gen.oneOf(Double.NaN, -0.0, 0.0, Double.PositiveInfinity, Double.NegativeInfinity,
      Double.MinValue, Double.MaxValue, Double.MinPositiveValue, 1.0, -1.0),
    4 -> Gen.choose(-1e6, 1e6))

  private val codePoints: Gen[Int] = Gen.frequency(
    5 -> Gen.choose('a'.toInt, 'e'.toInt),
    2 -> Gen.oneOf(0xE9, 0x4E2D, 0xD7FF, 0xE000, 0xFFFF, 0x1F600, 0x10FFFF, 0x10000, 0x7F, 0x80),
    1 -> Gen.choose(0, 0x10FFFF).filter(c => c < 0xD800 || c > 0xDFFF))

  val strings: Gen[String] = Gen.frequency(
    8 -> Gen.listOf(codePoints).map(cps => new String(cps.toArray, 0, cps.size)),
    1 -> Gen.choose(19990, 20010).map(len => "x" * len))

  def isZero(v: Any): Boolean = v match {
    case d: Double => d == 0.0
    case f: Float => f == 0.0f
  }
  def signBit(v: Any): Boolean = v match {
    case d: Double => java.lang.Double.doubleToRawLongBits(d) < 0
    case f: Float => java.lang.Float.floatToRawIntBits(f) < 0
  }
  /** IEEE total order (-0.0 < 0.0), with NaN largest like Spark. */
  def totalCompare(a: Any, b: Any): Int = (a, b) match {
    case (x: Double, y: Double) => java.lang.Double.compare(x, y)
    case (x: Float, y: Float) => java.lang.Float.compare(x, y)
  }
}
