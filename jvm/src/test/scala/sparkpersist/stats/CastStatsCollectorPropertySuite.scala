package sparkpersist.stats

import scala.util.Try

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Cast, EvalMode, Literal, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types.{DataType, DateType, Decimal, DoubleType, LongType, StringType, TimestampNTZType, TimestampType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckDrivenPropertyChecks

/**
 * The cast stats collector (which parses ASCII values with the functions Spark's casts call,
 * only where the value's shape admits them) against Spark's `Cast` expressions, value by value:
 * for each value, the stats of a one-value column are what `CAST` in legacy mode and `try_cast`
 * (the ANSI grammar, without its error) give, in two zones. The values are built to sit on every
 * edge of the parsers' grammars: signs, dots and exponents in every place, type suffixes,
 * hexadecimal floats, special words in any case, dates and timestamps with and without zones,
 * whitespace and control bytes around and inside, Unicode digits and spaces.
 */
class CastStatsCollectorPropertySuite extends AnyFunSuite with ScalaCheckDrivenPropertyChecks {

  private val Zones = Seq("UTC", "America/Los_Angeles")

  private def cast(s: String, to: DataType, mode: EvalMode.Value, zone: String): Option[Any] =
    Option(Cast(Literal(UTF8String.fromString(s)), to, Some(zone), mode).eval())

  private def range(v: Option[Any]): CastRange = v.fold(CastRange.none)(x => CastRange(1, Some(x), Some(x)))

  /**
   * What Spark's casts make of `s` in `zone`, as the stats of a one-value column: None if nothing
   * parses, or if the TIMESTAMP cast takes it for a time of the current day (Spark's own parser
   * says so), whose instant no stats can bound.
   */
  private def expected(s: String, zone: String): Option[CastStats] = {
    val (stats, withoutDate) = castsOf(s, zone)
    if (nothingParses(stats) || (withoutDate && timed(stats))) None else Some(stats)
  }

  /** Each cast's result as a one-value range, and whether Spark's parser read `s` as a time without a date. */
  private def castsOf(s: String, zone: String): (CastStats, Boolean) = {
    val withoutDate = Try(DateTimeUtils.parseTimestampString(UTF8String.fromString(s).trimAll())._3).getOrElse(false)
    def both(to: DataType): Option[Any] = {
      val legacy = cast(s, to, EvalMode.LEGACY, zone)
      val ansi = cast(s, to, EvalMode.TRY, zone)
      assert(legacy.map(_.toString) === ansi.map(_.toString), s"legacy and ANSI casts of '$s' to $to accept different values")
      legacy
    }
    val stats = CastStats(zone,
      exact = range(cast(s, LongType, EvalMode.TRY, zone)),
      truncated = range(cast(s, LongType, EvalMode.LEGACY, zone)),
      decimal = range(Option(Decimal.fromString(UTF8String.fromString(s))).map(_.toJavaBigDecimal)),
      double = range(both(DoubleType)),
      date = range(both(DateType)),
      timestamp = range(both(TimestampType)),
      unparsed = 0,
      timestampNtz = Some(range(both(TimestampNTZType))))
    (stats, withoutDate)
  }

  private def nothingParses(c: CastStats): Boolean = c.views.forall(_._2.count == 0) && c.timestampNtz.forall(_.count == 0)

  /** Whether a TIMESTAMP or TIMESTAMP_NTZ cast accepts some value. */
  private def timed(c: CastStats): Boolean = c.timestamp.count > 0 || c.timestampNtz.exists(_.count > 0)

  /**
   * What Spark's casts make of a column of `values`: each view's count and the least and greatest
   * of its values, the values no cast accepts; None if nothing parses or a value is a time
   * without a date.
   */
  private def expectedColumn(values: Seq[String], zone: String): Option[CastStats] = {
    val each = values.map(castsOf(_, zone))
    def union(view: CastStats => CastRange)(compare: (Any, Any) => Int): CastRange = {
      val accepted = each.map(e => view(e._1)).filter(_.count > 0)
      if (accepted.isEmpty) CastRange.none
      else CastRange(accepted.size, Some(accepted.map(_.lower.get).min(Ordering.fromLessThan[Any](compare(_, _) < 0))),
        Some(accepted.map(_.upper.get).max(Ordering.fromLessThan[Any](compare(_, _) < 0))))
    }
    val longs: (Any, Any) => Int = (a, b) => java.lang.Long.compare(a.toString.toLong, b.toString.toLong)
    val stats = CastStats(zone, union(_.exact)(longs), union(_.truncated)(longs),
      union(_.decimal)((a, b) => a.asInstanceOf[java.math.BigDecimal].compareTo(b.asInstanceOf[java.math.BigDecimal])),
      union(_.double)((a, b) => java.lang.Double.compare(a.asInstanceOf[Double], b.asInstanceOf[Double])),
      union(_.date)(longs), union(_.timestamp)(longs),
      unparsed = each.count(e => nothingParses(e._1)),
      timestampNtz = Some(union(_.timestampNtz.get)(longs)))
    if (nothingParses(stats) || each.exists(e => e._2 && timed(e._1))) None else Some(stats)
  }

  private def collected(s: String, zone: String): Option[CastStats] = collectedColumn(Seq(s), zone)

  /**
   * The collector's stats of `values`, given as `UTF8String`s; the same values read in place from
   * the middle field of a reused `UnsafeRow` (as the writer hands them) must give the same stats.
   */
  private def collectedColumn(values: Seq[String], zone: String): Option[CastStats] = {
    val given = new CastStatsCollector(zone)
    values.foreach(v => given.add(UTF8String.fromString(v)))
    val inPlace = new CastStatsCollector(zone)
    values.foreach(v => inPlace.add(between(v), 1))
    val stats = given.result()
    assert(inPlace.result() === stats, s"values read in place from an UnsafeRow: $values")
    stats
  }

  private val threeStrings = UnsafeProjection.create(Array[DataType](StringType, StringType, StringType))

  /** An `UnsafeRow` (the projection's one buffer, rewritten) whose middle field is `v`. */
  private def between(v: String): UnsafeRow =
    threeStrings(InternalRow(UTF8String.fromString("before"), UTF8String.fromString(v), UTF8String.fromString("after \u00e9")))

  private val digits = Gen.listOf(Gen.numChar).map(_.mkString)
  private val sign = Gen.oneOf("", "+", "-")
  private val pad = Gen.listOf(Gen.oneOf(" ", "\t", "\n", "\r", "\u0000", "\u001f", "\u007f", "\u00a0", "\u2003")).map(_.take(2).mkString)

  private val numbers: Gen[String] = for {
    s <- sign; whole <- digits; dot <- Gen.oneOf("", "."); fraction <- digits
    exp <- Gen.oneOf(Gen.const(""), for { e <- Gen.oneOf("e", "E"); es <- sign; ed <- digits } yield e + es + ed)
    suffix <- Gen.oneOf("", "", "", "f", "F", "d", "D", "L", "x")
  } yield s + whole.take(20) + dot + fraction.take(6) + exp + suffix

  private val words: Gen[String] = for {
    s <- sign
    w <- Gen.oneOf("inf", "infinity", "nan", "NaN", "Infinity", "INF", "iNfInItY", "in", "infinit", "nana", "N/A", "null", "true")
  } yield s + w

  private val hex: Gen[String] = for {
    s <- sign; x <- Gen.oneOf("0x", "0X", "x"); h <- Gen.listOf(Gen.oneOf("0123456789abcdefABCDEF.".toSeq)).map(_.take(6).mkString)
    p <- Gen.oneOf("", "p3", "P-2", "p")
  } yield s + x + h + p

  private val times: Gen[String] = for {
    y <- Gen.oneOf("2026", "1970", "0001", "99999", "-0044", "+2026", "26", "")
    m <- Gen.oneOf("", "-1", "-01", "-12", "-13", "-")
    d <- Gen.oneOf("", "-5", "-05", "-31", "-32")
    t <- Gen.oneOf("", " ", "T", " 10:00", "T10:00:00", "T23:59:59.123456", " 24:00", "T1", " 10:00:00.5 ", "garbage")
    z <- Gen.oneOf("", "Z", "+01:00", "-08", " UTC", " Europe/Paris", "+25:00", "[UTC]")
  } yield y + m + d + t + z

  private val timeOnly: Gen[String] = Gen.oneOf("T10:00", "10:00:00", "T23:59:59Z", "12:00 UTC")

  private val unicode: Gen[String] = Gen.oneOf("\u0661\u0662\u0663", "\uff11\uff12", "1\u0662", "\u0661.5", "\u0661e2", "2026-\u0660\u0661-05", "12\u00a0", "\u2003 7")

  private val arbitrary: Gen[String] = Gen.listOf(Gen.oneOf("0123456789+-.eEdDfFxXpPaAnNiItTyYZ: /,_\t\u0000\u007f".toSeq))
    .map(_.take(14).mkString)

  private val values: Gen[String] = for {
    body <- Gen.frequency(4 -> numbers, 1 -> words, 1 -> hex, 3 -> times, 1 -> timeOnly, 1 -> unicode, 3 -> arbitrary)
    before <- pad; after <- pad
  } yield before + body + after

  test("one value at a time, the collector records exactly what Spark's casts accept, legacy and ANSI") {
    var checked = 0
    forAll(values, minSuccessful(8000)) { s =>
      Zones.foreach { zone =>
        assert(collected(s, zone) === expected(s, zone), s"value '${s.flatMap(c => if (c < ' ' || c > '~') f"\\u${c.toInt}%04x" else c.toString)}' in $zone")
        checked += 1
      }
    }
    info(s"$checked values compared with Spark's casts")
  }

  /** Plain numbers of every scale and sign, zeros and leading zeros included. */
  private val plainNumbers: Gen[String] = for {
    s <- sign; whole <- Gen.choose(0, 12).flatMap(Gen.listOfN(_, Gen.numChar)).map(_.mkString)
    dot <- Gen.oneOf("", "", "."); fraction <- Gen.choose(0, 6).flatMap(Gen.listOfN(_, Gen.numChar)).map(_.mkString)
  } yield s + whole + (if (dot.isEmpty) "" else dot + fraction)

  /** Canonical dates and timestamps, many around the daylight saving transitions of 2026. */
  private val canonicalTimes: Gen[String] = for {
    date <- Gen.oneOf(Gen.oneOf("2026-03-08", "2026-03-29", "2026-11-01", "2026-10-25", "1970-01-01", "2026-02-29"),
      for { y <- Gen.oneOf(1900, 2025, 2026, 2400); m <- Gen.choose(1, 12); d <- Gen.choose(1, 31) } yield f"$y%04d-$m%02d-$d%02d")
    time <- Gen.oneOf(Gen.const(""), for {
      sep <- Gen.oneOf(" ", "T"); h <- Gen.choose(0, 24); m <- Gen.choose(0, 59); sec <- Gen.oneOf(0, 30, 59, 60)
      f <- Gen.oneOf("", ".5", ".123456", ".1234567", ".")
    } yield f"$sep$h%02d:$m%02d:$sec%02d$f")
  } yield date + time

  test("a column of many values: counts and bounds are those of Spark's casts over all of them") {
    val column = Gen.listOf(Gen.frequency(3 -> plainNumbers, 3 -> canonicalTimes, 2 -> values)).map(_.take(40))
    forAll(column, minSuccessful(1500)) { values =>
      Zones.foreach(zone => assert(collectedColumn(values, zone) === expectedColumn(values, zone), s"values $values in $zone"))
    }
  }

  test("edges the generators might miss") {
    val edges = Seq("", " ", ".", "+", "-", "e5", ".e5", "1.", ".5", "1e", "1e+", "1E-5", "1.5f", "1.5e3D", "1fx",
      "9223372036854775807", "9223372036854775808", "-9223372036854775808", "1.9", "-1.9", "00012", "0x1p3", "0x.8p1",
      "0x1", "+Infinity", "-NaN", " inf ", "\u0000nan", "1\u00002", "1 2", "1e9999999999", "123456789012345678901234567890e-5",
      "2026-01-05", "2026-01-05 garbage", "2026", "T10:00", "10:00", " 10:00:00.5", "\u00a0T1", "12:00 UTC", "-10:00", "\u007f12\u007f", "12\u007f")
    for (s <- edges; zone <- Zones) assert(collected(s, zone) === expected(s, zone), s"value '$s' in $zone")
  }
}
