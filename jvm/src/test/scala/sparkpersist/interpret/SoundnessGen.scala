package sparkpersist.interpret

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen

/**
 * Random material for the soundness property: well-typed SQL predicates over the columns of
 * [[SoundnessGen.columns]] (every supported type, plus `mz`, standing for `mz_now()`), and
 * parts of rows with nulls, NaN, infinities, -0.0, extreme values, tiny and huge ranges.
 */
object SoundnessGen {

  /** Column name, type. Internal values per type come from [[value]]. */
  val columns: IndexedSeq[(String, DataType)] = IndexedSeq(
    "i" -> IntegerType, "sh" -> ShortType, "l" -> LongType, "d" -> DoubleType, "f" -> FloatType,
    "m" -> DecimalType(10, 2), "s" -> StringType, "dt" -> DateType, "ts" -> TimestampType,
    "b" -> BooleanType)

  /** One part: its rows (internal values, column order), and the as-of of `mz_now()`. */
  final case class Part(rows: IndexedSeq[IndexedSeq[Any]], mzNow: Long, mzSince: Boolean,
      mzValues: IndexedSeq[Long])

  /** One part's stats options: truncated string bounds, columns without stats. */
  final case class PartCase(part: Part, truncateStrings: Boolean, dropStats: Set[Int])

  /** One generated case: a predicate in SQL over the columns, parts, and a time zone. */
  final case class Case(sql: String, parts: Seq[PartCase], zone: String)

  private val dayMicros = 86400L * 1000000L
  private val hourMicros = 3600L * 1000000L
  /** Instants where the test zones change offsets (Los Angeles, Sao Paulo, Berlin fall back; LA springs forward). */
  private val offsetChanges = Seq(1730624400000000L, 1710064800000000L, 1518919200000000L, 1729990800000000L)
  private val minDate = -719162
  private val maxDate = 2932896
  private val minTs = -62135596800000000L
  private val maxTs = 253402300799999999L

  private def around[T](center: Gen[T], spread: Gen[T]) = Gen.oneOf(center, spread)

  private val intExtremes = Gen.oneOf(Int.MinValue, Int.MinValue + 1, -1, 0, 1, Int.MaxValue - 1, Int.MaxValue)
  private val longExtremes = Gen.oneOf(Long.MinValue, Long.MinValue + 1, -1L, 0L, 1L, Long.MaxValue - 1, Long.MaxValue)
  private val doubleSpecials = Gen.oneOf(Double.NaN, Double.PositiveInfinity, Double.NegativeInfinity,
    -0.0, 0.0, Double.MaxValue, -Double.MaxValue, Double.MinPositiveValue, 1e19, -1e19)
  private val strings = Gen.oneOf("", "a", "ab", "abc", "abd", "b", "US", "USA", "UT", "ü", "\u00ff\u00ff",
    "12", "-5", "1e3", "NaN", "2024-01-01", "9999999999", " 7 ", "12.50", "-0", "2024", "1969-12-31 23:59:59",
    "2024-03-10 02:30:00", "2024-01-01T10:00:00.5", "12:30", "N/A", "+.5")

  /** A generator of non-null internal values of `dt`, centred on a per-part profile. */
  def value(dt: DataType): Gen[Gen[Any]] = dt match {
    case IntegerType => Gen.oneOf(
      intExtremes.map(c => Gen.choose(-3, 3).map(d => clampInt(c.toLong + d))),
      Gen.const(Gen.choose(-1000, 1000)), Gen.const(Gen.choose(Int.MinValue, Int.MaxValue)))
    case ShortType => Gen.const(Gen.oneOf(Gen.choose(Short.MinValue, Short.MaxValue),
      Gen.oneOf(Short.MinValue, Short.MaxValue, 0.toShort)))
    case LongType => Gen.oneOf(
      longExtremes.map(c => Gen.choose(-3L, 3L).map(d => clampLong(BigInt(c) + d))),
      Gen.const(Gen.choose(-100000L, 100000L)), Gen.const(Gen.choose(Long.MinValue, Long.MaxValue)),
      Gen.const(Gen.choose(minTs / 1000, maxTs / 1000)),
      Gen.oneOf(offsetChanges).map(c => Gen.choose(-3 * 3600L, 3 * 3600L).map(c / 1000000L + _)))
    case DoubleType => Gen.oneOf(Gen.const(doubleSpecials),
      Gen.const(Gen.choose(-1000.0, 1000.0)), Gen.const(Gen.oneOf(doubleSpecials, Gen.choose(-1e6, 1e6))))
    case FloatType => value(DoubleType).map(_.map(v => v.asInstanceOf[Double].toFloat))
    case d: DecimalType => Gen.const(Gen.oneOf(
      Gen.choose(-9999999999L, 9999999999L), Gen.choose(-1000L, 1000L)).map(u =>
      Decimal(BigDecimal(u, d.scale), d.precision, d.scale)))
    case StringType => Gen.const(strings.map(UTF8String.fromString))
    case DateType => Gen.oneOf(
      Gen.choose(minDate, maxDate).map(c => Gen.choose(0, 40).map(d => math.min(maxDate, c + d))),
      Gen.const(Gen.choose(19000, 20500)), Gen.const(Gen.oneOf(minDate, maxDate, 0, Int.MinValue, Int.MaxValue)))
    case TimestampType => Gen.oneOf(
      Gen.choose(minTs, maxTs).map(c => Gen.choose(0L, 5 * dayMicros).map(d => math.min(maxTs, c + d))),
      Gen.const(Gen.choose(1.6e15.toLong, 1.8e15.toLong)),
      Gen.choose(1.6e15.toLong, 1.8e15.toLong).map(c => Gen.choose(0L, 6 * hourMicros).map(c + _)),
      Gen.oneOf(offsetChanges).map(c => Gen.choose(-3 * hourMicros, 3 * hourMicros).map(c + _)),
      Gen.const(Gen.oneOf(minTs, maxTs, 0L, Long.MinValue, Long.MaxValue, -1L)))
    case BooleanType => Gen.const(Gen.oneOf(true, false))
  }

  private def clampInt(v: Long): Int = math.max(Int.MinValue, math.min(Int.MaxValue, v)).toInt
  private def clampLong(v: BigInt): Long =
    if (v > Long.MaxValue) Long.MaxValue else if (v < Long.MinValue) Long.MinValue else v.toLong

  val part: Gen[Part] = for {
    n <- Gen.choose(1, 10)
    perColumn <- Gen.sequence[IndexedSeq[Gen[Any]], Gen[Any]](columns.map { case (_, dt) =>
      for {
        values <- value(dt)
        nullRate <- Gen.oneOf(0.0, 0.0, 0.3, 1.0)
      } yield Gen.frequency(((nullRate * 100).toInt, Gen.const(null)), ((1 - nullRate) * 100).toInt -> values)
    })
    rows <- Gen.listOfN(n, Gen.sequence[IndexedSeq[Any], Any](perColumn))
    mz <- Gen.oneOf(Gen.choose(1.6e15.toLong, 1.8e15.toLong), Gen.choose(minTs, maxTs))
    since <- Gen.oneOf(false, true)
    mzValues <- Gen.listOfN(3, Gen.oneOf(Gen.const(0L), Gen.choose(0L, 100 * dayMicros), Gen.const(Long.MaxValue - mz)))
  } yield Part(rows.toIndexedSeq, mz, since, if (since) mzValues.map(mz + _).toIndexedSeq else IndexedSeq(mz))

  // ---- SQL expressions, by result kind ----

  private def pick(options: (Int, Gen[String])*): Gen[String] = Gen.frequency(options: _*)

  private def lit(values: Any*): Gen[String] = Gen.oneOf(values.map(_.toString))

  private def fn(name: String, args: Gen[String]*): Gen[String] =
    Gen.sequence[List[String], String](args).map(_.mkString(s"$name(", ", ", ")"))

  private def bin(l: Gen[String], op: String, r: Gen[String]): Gen[String] =
    for (a <- l; b <- r) yield s"($a $op $b)"

  private def generic(kind: Int => Gen[String], d: Int): Seq[(Int, Gen[String])] = Seq(
    1 -> fn("coalesce", kind(d - 1), kind(d - 1)),
    1 -> fn("if", bool(d - 1), kind(d - 1), kind(d - 1)),
    1 -> (for (c <- bool(d - 1); a <- kind(d - 1); b <- kind(d - 1); e <- kind(d - 1))
      yield s"CASE WHEN $c THEN $a WHEN NOT $c THEN $b ELSE $e END"),
    1 -> fn("greatest", kind(d - 1), kind(d - 1)),
    1 -> fn("least", kind(d - 1), kind(d - 1)))

  def int(d: Int): Gen[String] =
    if (d <= 0) pick(3 -> Gen.oneOf("i", "sh"), 1 -> lit(0, 1, -7, 2147483647, -2147483648, 100))
    else pick(Seq(
      3 -> int(0),
      2 -> bin(int(d - 1), "+", int(d - 1)),
      2 -> bin(int(d - 1), "-", int(d - 1)),
      2 -> bin(int(d - 1), "*", lit(2, -3, 0, 100000)),
      1 -> fn("-", int(d - 1)).map(_.replace("-(", "(-")),
      1 -> fn("abs", int(d - 1)),
      1 -> fn("year", date(d - 1)),
      1 -> fn("unix_date", date(d - 1)),
      1 -> long(d - 1).map(x => s"cast($x as int)"),
      1 -> double(d - 1).map(x => s"cast($x as int)"),
      1 -> str(d - 1).map(x => s"cast($x as int)"),
      1 -> str(d - 1).map(x => s"try_cast($x as int)"),
      1 -> fn("try_add", int(d - 1), int(d - 1)),
      1 -> bin(int(d - 1), "%", lit(7, -2)),
      1 -> fn("hash", int(d - 1)),
      2 -> ts(d - 1).flatMap(x => Gen.oneOf("hour", "minute", "second").map(f => s"$f($x)")),
      2 -> date(d - 1).flatMap(x => Gen.oneOf("month", "dayofmonth", "dayofyear", "quarter", "dayofweek",
        "weekday").map(f => s"$f($x)")),
      1 -> ts(d - 1).map(x => s"month($x)")) ++ generic(int, d): _*)

  def long(d: Int): Gen[String] =
    if (d <= 0) pick(3 -> Gen.const("l"), 1 -> lit("0L", "9223372036854775807L", "-9223372036854775808L", "86400000L"))
    else pick(Seq(
      3 -> long(0),
      2 -> bin(long(d - 1), "+", long(d - 1)),
      1 -> bin(long(d - 1), "-", int(d - 1)),
      2 -> bin(long(d - 1), "*", lit("1000L", "-1L", "0L", "3")),
      2 -> bin(long(d - 1), "div", lit(1000, -7, 0, -1)),
      1 -> fn("-", long(d - 1)).map(_.replace("-(", "(-")),
      1 -> fn("abs", long(d - 1)),
      1 -> fn("unix_millis", ts(d - 1)),
      1 -> fn("unix_seconds", ts(d - 1)),
      1 -> fn("unix_micros", ts(d - 1)),
      1 -> ts(d - 1).map(x => s"cast($x as bigint)"),
      1 -> int(d - 1).map(x => s"cast($x as bigint)"),
      1 -> double(d - 1).map(x => s"cast($x as bigint)"),
      1 -> decimal(d - 1).map(x => s"cast($x as bigint)"),
      1 -> fn("try_multiply", long(d - 1), lit("1000L", "-2L")),
      1 -> (for (x <- str(d - 1); c <- Gen.oneOf("cast", "try_cast")) yield s"$c($x as bigint)"),
      1 -> double(d - 1).flatMap(x => Gen.oneOf(s"floor($x)", s"ceil($x)"))) ++ generic(long, d): _*)

  def double(d: Int): Gen[String] =
    if (d <= 0) pick(3 -> Gen.oneOf("d", "f"),
      1 -> lit("0.5D", "-0.0D", "double('NaN')", "double('Infinity')", "double('-Infinity')", "1.0E300D"))
    else pick(Seq(
      3 -> double(0),
      2 -> bin(double(d - 1), "+", double(d - 1)),
      2 -> bin(double(d - 1), "*", lit("2.0D", "-0.5D", "0.0D", "1.0E300D", "double('NaN')")),
      2 -> bin(double(d - 1), "/", lit("4.0D", "-3.0D", "0.0D")),
      1 -> fn("-", double(d - 1)).map(_.replace("-(", "(-")),
      1 -> fn("abs", double(d - 1)),
      1 -> long(d - 1).map(x => s"cast($x as double)"),
      1 -> decimal(d - 1).map(x => s"cast($x as double)"),
      1 -> ts(d - 1).map(x => s"cast($x as double)"),
      1 -> double(d - 1).map(x => s"cast($x as float)"),
      1 -> (for (x <- str(d - 1); c <- Gen.oneOf("cast", "try_cast")) yield s"$c($x as double)"),
      1 -> double(d - 1).flatMap(x => Gen.oneOf(s"round($x, 1)", s"bround($x, -2)"))) ++ generic(double, d): _*)

  def decimal(d: Int): Gen[String] =
    if (d <= 0) pick(3 -> Gen.const("m"), 1 -> lit("12.34BD", "-0.01BD", "99999999.99BD"))
    else pick(Seq(
      3 -> decimal(0),
      2 -> bin(decimal(d - 1), "+", decimal(d - 1)),
      1 -> bin(decimal(d - 1), "*", lit("3", "-2.5BD", "1000000000")),
      1 -> bin(decimal(d - 1), "/", lit("7", "-0.5BD", "0")),
      1 -> int(d - 1).map(x => s"cast($x as decimal(10, 2))"),
      1 -> double(d - 1).map(x => s"cast($x as decimal(10, 2))"),
      1 -> decimal(d - 1).map(x => s"cast($x as decimal(5, 1))"),
      1 -> (for (x <- str(d - 1); c <- Gen.oneOf("cast", "try_cast")) yield s"$c($x as decimal(10, 2))")) ++
      generic(decimal, d): _*)

  def str(d: Int): Gen[String] =
    if (d <= 0) pick(3 -> Gen.const("s"), 1 -> lit("'US'", "''", "'abc'", "'12'"))
    else pick(
      3 -> str(0),
      1 -> int(d - 1).map(x => s"cast($x as string)"),
      1 -> fn("concat", str(d - 1), lit("'x'")),
      1 -> fn("upper", str(d - 1)),
      1 -> fn("lower", str(d - 1)),
      1 -> str(d - 1).flatMap(x => Gen.oneOf(s"substring($x, 1, 2)", s"left($x, 1)", s"substring($x, 0, 3)")),
      2 -> (for (t <- ts(d - 1); p <- formats) yield s"date_format($t, '$p')"),
      1 -> (for (l <- long(d - 1); p <- formats) yield s"from_unixtime($l, '$p')"),
      1 -> fn("coalesce", str(d - 1), str(d - 1)))

  /** `date_format` patterns, order-preserving ones and others. */
  private val formats = Gen.oneOf("yyyy-MM-dd", "yyyy-MM-dd HH:mm:ss", "yyyyMMdd\\'T\\'HH", "yyyy-MM-dd HH:mm:ss.SSS",
    "dd/MM/yyyy", "yyyy-dd", "HH:mm", "yyyy-M-d")

  def date(d: Int): Gen[String] =
    if (d <= 0) pick(3 -> Gen.const("dt"), 1 -> lit("DATE'2024-01-01'", "DATE'0001-01-01'", "DATE'9999-12-31'"))
    else pick(Seq(
      3 -> date(0),
      2 -> fn("date_add", date(d - 1), int(d - 1)),
      1 -> fn("date_sub", date(d - 1), lit(30, -2147483648)),
      2 -> fn("to_date", ts(d - 1)),
      1 -> ts(d - 1).map(x => s"cast($x as date)"),
      1 -> fn("trunc", date(d - 1), lit("'MM'", "'YEAR'", "'WEEK'")),
      1 -> fn("date_from_unix_date", int(d - 1)),
      1 -> bin(date(d - 1), "+", lit("INTERVAL 1 MONTH", "INTERVAL -13 MONTH")),
      1 -> fn("to_date", str(d - 1)),
      1 -> str(d - 1).map(x => s"cast($x as date)")) ++ generic(date, d): _*)

  def ts(d: Int): Gen[String] =
    if (d <= 0) pick(3 -> Gen.oneOf("ts", "mz"),
      1 -> lit("TIMESTAMP'2024-01-01 00:00:00'", "TIMESTAMP'0001-01-01 00:00:00'"))
    else pick(Seq(
      3 -> ts(0),
      3 -> bin(ts(d - 1), "+", lit("INTERVAL 30 DAYS", "INTERVAL '-2' HOUR", "INTERVAL 1 MONTH",
        "INTERVAL '100000000' DAY")),
      1 -> bin(ts(d - 1), "-", lit("INTERVAL 1 DAY", "INTERVAL 2 YEARS")),
      2 -> fn("date_trunc", lit("'HOUR'", "'DAY'", "'MONTH'", "'YEAR'", "'WEEK'"), ts(d - 1)),
      1 -> fn("timestamp_millis", long(d - 1)),
      1 -> fn("timestamp_seconds", long(d - 1)),
      1 -> fn("timestamp_micros", long(d - 1)),
      1 -> date(d - 1).map(x => s"cast($x as timestamp)"),
      1 -> (for (x <- str(d - 1); c <- Gen.oneOf("cast", "try_cast")) yield s"$c($x as timestamp)"),
      1 -> (for (n <- int(d - 1); t <- ts(d - 1); u <- Gen.oneOf("HOUR", "MONTH", "DAY"))
        yield s"timestampadd($u, $n, $t)")) ++ generic(ts, d): _*)

  private val kinds: Seq[Int => Gen[String]] = Seq(int, long, double, decimal, str, date, ts)

  /** A point lookup on a column (`=`, `<=>`, `IN`) with constants its values often take. */
  private val lookup: Gen[String] = for {
    (column, constants) <- Gen.oneOf(Seq("i" -> Seq("0", "1", "-1", "2147483647"), "l" -> Seq("0L", "1L", "-1L"),
      "s" -> Seq("'US'", "'ab'", "''", "'\u00fc'"), "d" -> Seq("-0.0D", "0.0D", "double('NaN')", "1.0E300D"),
      "dt" -> Seq("DATE'2024-01-01'", "DATE'1970-01-01'"), "ts" -> Seq("TIMESTAMP'1970-01-01 00:00:00'"),
      // Decimals of other scales than m's DECIMAL(10, 2): equal by value (1.5 = 1.50).
      "m" -> Seq("0BD", "1.5BD", "-0.01BD", "0.10BD", "7.000BD")))
    items <- Gen.atLeastOne(constants)
    form <- Gen.choose(0, 2)
  } yield form match {
    case 0 => s"($column = ${items.head})"
    case 1 => s"($column <=> ${items.head})"
    case _ => s"($column IN (${items.mkString(", ")}))"
  }

  def bool(d: Int): Gen[String] =
    if (d <= 0) pick(2 -> Gen.const("b"), 1 -> lit("true", "false", "cast(null as boolean)"),
      4 -> comparison(0), 2 -> lookup)
    else pick(
      3 -> comparison(d),
      1 -> lookup,
      2 -> bin(bool(d - 1), "AND", bool(d - 1)),
      2 -> bin(bool(d - 1), "OR", bool(d - 1)),
      1 -> bool(d - 1).map(x => s"(NOT $x)"),
      1 -> Gen.oneOf(kinds).flatMap(_(d - 1)).flatMap(x => Gen.oneOf(s"($x IS NULL)", s"($x IS NOT NULL)")),
      1 -> fn("startswith", str(d - 1), lit("'a'", "'US'", "''", "'\u00ff'")),
      1 -> str(d - 1).flatMap(x => lit(s"($x LIKE 'ab%')", s"($x LIKE 'U_')", s"($x LIKE 'US')")),
      1 -> fn("if", bool(d - 1), bool(d - 1), bool(d - 1)))

  private def comparison(d: Int): Gen[String] = for {
    kind <- Gen.oneOf(kinds)
    op <- Gen.oneOf("=", "<", "<=", ">", ">=", "<=>", "!=")
    l <- kind(d)
    r <- kind(d)
    in <- Gen.listOfN(3, kind(0))
    form <- Gen.choose(0, 5)
  } yield if (form == 0) s"($l IN (${(r +: in).mkString(", ")}))" else s"($l $op $r)"

  val predicate: Gen[String] = Gen.choose(1, 3).flatMap(bool)

  private val partCase: Gen[PartCase] = for {
    p <- part
    truncate <- Gen.oneOf(false, true)
    drop <- Gen.frequency(4 -> Gen.const(Set.empty[Int]), 1 -> Gen.choose(0, columns.size - 1).map(Set(_)))
  } yield PartCase(p, truncate, drop)

  val sample: Gen[Case] = for {
    sql <- predicate
    parts <- Gen.listOfN(PartsPerCase, partCase)
    zone <- Gen.oneOf("UTC", "America/Sao_Paulo", "Asia/Kolkata", "America/Los_Angeles", "Europe/Berlin",
      "Asia/Kathmandu", "Australia/Eucla")
  } yield Case(sql, parts, zone)

  /** Parts checked per predicate (analysis is the costly step, so each predicate gets several). */
  val PartsPerCase = 6
}
