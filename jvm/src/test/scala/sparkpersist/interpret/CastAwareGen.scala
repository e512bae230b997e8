package sparkpersist.interpret

import org.scalacheck.Gen

/**
 * Random text for the cast soundness property: numbers in every shape CAST may or may not take
 * (signs, whitespace, fractions, exponents, overflow, special values, Java-only forms), dates and
 * timestamps in many formats (partial dates, `T`, fractions, offsets, zone names, DST gaps and
 * overlaps, far years), and garbage.
 */
object CastAwareGen {

  /** Session time zones: one fixed, two with DST, one with a half-hour offset. */
  val zones: Seq[String] = Seq("UTC", "America/Los_Angeles", "Europe/Berlin", "Asia/Kolkata")

  private val space = Gen.frequency(8 -> "", 2 -> " ", 1 -> "  ", 1 -> "\t", 1 -> "\n", 1 -> "\u00a0", 1 -> "\u2003")
  private val sign = Gen.frequency(6 -> "", 2 -> "-", 1 -> "+", 1 -> "--")
  private val digits = Gen.frequency(
    6 -> Gen.choose(1, 4).flatMap(n => Gen.listOfN(n, Gen.numChar).map(_.mkString)),
    2 -> Gen.choose(5, 21).flatMap(n => Gen.listOfN(n, Gen.numChar).map(_.mkString)),
    2 -> Gen.oneOf("0", "00", "127", "128", "255", "32767", "32768", "2147483647", "2147483648",
      "9223372036854775807", "9223372036854775808", "99999999999999999999999999999999999999",
      "999999999999999999999999999999999999999"))
  private val fraction = Gen.frequency(5 -> "", 2 -> Gen.listOf(Gen.numChar).map("." + _.mkString),
    1 -> ".5", 1 -> ".499", 1 -> ".", 1 -> ".005")
  private val exponent = Gen.frequency(6 -> "", 1 -> "e3", 1 -> "E-2", 1 -> "e+1", 1 -> "e400", 1 -> "e-400", 1 -> "e")
  private val suffix = Gen.frequency(12 -> "", 1 -> "d", 1 -> "f", 1 -> "L", 1 -> "x")

  private val number: Gen[String] = for {
    a <- space; s <- sign; d <- digits; f <- fraction; e <- exponent; x <- suffix; b <- space
  } yield a + s + d + f + e + x + b

  private val special = Gen.oneOf("Infinity", "-Infinity", "+inf", "INF", "-inf", "NaN", "nan", " NaN ",
    "0x1p3", "0x10", "1_000", "1,5", "١٢", "\uff11\uff12", ".5", "-.5", "5.", "-0", "+0.0", "1e1e1")

  private def pad(n: Int, width: Int): String = {
    val s = math.abs(n).toString
    (if (n < 0) "-" else "") + "0" * math.max(0, width - s.length) + s
  }

  private val year = Gen.frequency(6 -> Gen.choose(1969, 2031), 1 -> Gen.oneOf(1, 999, 1582, 9999, 10000, 294247, 294248, -1, 0))
  private val date: Gen[String] = for {
    y <- year; m <- Gen.frequency(8 -> Gen.choose(1, 12), 1 -> Gen.oneOf(0, 13)); d <- Gen.frequency(8 -> Gen.choose(1, 28), 1 -> Gen.oneOf(0, 29, 30, 31, 32))
    form <- Gen.choose(0, 5)
  } yield form match {
    case 0 => s"${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}"
    case 1 => s"$y-$m-$d"
    case 2 => s"${pad(y, 4)}-${pad(m, 2)}"
    case 3 => pad(y, 4)
    case 4 => s"${pad(y, 4)}/${pad(m, 2)}/${pad(d, 2)}"
    case _ => s"${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}x"
  }
  private val time: Gen[String] = for {
    sep <- Gen.oneOf(" ", "T", "  ", "t")
    h <- Gen.frequency(6 -> Gen.choose(0, 23), 1 -> Gen.const(24)); mi <- Gen.choose(0, 59); s <- Gen.choose(0, 60)
    form <- Gen.choose(0, 3); frac <- Gen.oneOf("", ".1", ".123456", ".1234567", ".")
  } yield form match {
    case 0 => s"$sep${pad(h, 2)}:${pad(mi, 2)}"
    case 1 => s"$sep${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}$frac"
    case 2 => s"$sep$h:$mi:$s"
    case _ => s"$sep${pad(h, 2)}"
  }
  private val offset = Gen.frequency(4 -> "", 1 -> "Z", 1 -> "+05:30", 1 -> "-08:00", 1 -> "+18:00", 1 -> " UTC",
    1 -> " America/New_York", 1 -> "+0100", 1 -> " GMT+01:00", 1 -> "+19:00", 1 -> " Mars/Olympus")
  private val transitions = Gen.oneOf("2026-03-08 02:30:00", "2026-11-01 01:30:00", "2026-03-29 02:30:00",
    "2026-10-25 02:30:00", "+294247-01-10 04:00:54.775807", "-290308-12-21 19:59:05.224192",
    "+294247-01-09", "-290308-12-22", "+294247-01-10 04:00:54.775807Z", "2026-01-05 00:00:00 Europe/Berlin")
  private val dateTime: Gen[String] = for {
    a <- space; d <- date; t <- Gen.frequency(1 -> Gen.const(""), 2 -> time); o <- offset; b <- space
  } yield a + d + t + o + b

  private val garbage = Gen.oneOf("", " ", "N/A", "null", "abc", "true", "-", "+", "e5", "1-2", "12:30", "T10:00",
    "2026-01-05 10:00:00 extra", "\u0000", "1\u00002")

  val text: Gen[String] = Gen.frequency(5 -> number, 2 -> special, 5 -> dateTime, 2 -> transitions, 2 -> garbage)

  /** One part's strings: a few, some null, often of one kind (as real columns are). */
  val part: Gen[Seq[String]] = for {
    n <- Gen.choose(1, 10)
    kind <- Gen.oneOf(number, dateTime, text, Gen.oneOf(number, garbage), Gen.oneOf(special, number))
    values <- Gen.listOfN(n, Gen.frequency(8 -> kind, 1 -> Gen.const(null: String)))
  } yield values

  /** Targets the property casts to. */
  val targets: Seq[String] = Seq("TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL(10,2)", "DECIMAL(38,0)",
    "DECIMAL(5,5)", "DECIMAL(38,18)", "DOUBLE", "FLOAT", "DATE", "TIMESTAMP", "TIMESTAMP_NTZ")
}
