package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.schema.ShardSchema

/** Cast stats of string columns: what the collector records, their encoding, their budget. */
class CastStatsSuite extends AnyFunSuite {

  private def collect(values: Seq[String], zone: String = "UTC"): ColumnStats = {
    val c = StatsCollector.forColumn(StringType, json = false, 64, Some(zone))
    val row = new GenericInternalRow(1)
    values.foreach { v =>
      row.update(0, if (v == null) null else UTF8String.fromString(v))
      c.update(row, 0)
    }
    c.result()
  }

  private def dec(s: String) = new java.math.BigDecimal(s)

  test("each view counts and bounds what Spark's casts accept") {
    val c = collect(Seq(" 12 ", "-3", "1.9", "1e3", "Infinity", "2026-01-05", "N/A", null, "2026-1-5 10:00")).casts.get
    assert(c.zone === "UTC")
    assert(c.exact === CastRange(2, Some(-3L), Some(12L)))
    assert(c.truncated === CastRange(3, Some(-3L), Some(12L)))
    assert(c.decimal === CastRange(4, Some(dec("-3")), Some(dec("1E+3"))))
    assert(c.double === CastRange(5, Some(-3.0), Some(Double.PositiveInfinity)))
    // 2026-01-05 is day 20458; "2026-1-5 10:00" casts to the same date.
    assert(c.date === CastRange(2, Some(20458), Some(20458)))
    assert(c.timestamp === CastRange(2, Some(20458L * 86400000000L), Some(20458L * 86400000000L + 36000000000L)))
    assert(c.unparsed === 1)
  }

  test("timestamps without an offset are parsed in the recorded zone") {
    val utc = collect(Seq("2026-01-05 00:00:00")).casts.get.timestamp
    val paris = collect(Seq("2026-01-05 00:00:00"), zone = "Europe/Paris").casts.get
    assert(paris.zone === "Europe/Paris")
    assert(paris.timestamp.lower.get === utc.lower.get.asInstanceOf[Long] - 3600000000L)
    assert(collect(Seq("2026-01-05T00:00:00Z"), zone = "Europe/Paris").casts.get.timestamp === utc)
  }

  test("a column where nothing parses, or only nulls, gets no cast stats; without a zone, none are collected") {
    assert(collect(Seq("N/A", "abc", "")).casts === None)
    assert(collect(Seq(null, null)).casts === None)
    val plain = StatsCollector.forColumn(StringType, json = false, 64)
    assert(plain.isInstanceOf[StringCollector])
    val row = new GenericInternalRow(Array[Any](UTF8String.fromString("12")))
    plain.update(row, 0)
    assert(plain.result().casts === None)
    assert(StatsCollector.forColumn(StringType, json = true, 64, Some("UTC")).isInstanceOf[JsonTextCollector])
  }

  test("after 1024 values that all fail every cast, the collector gives up for the part") {
    val garbage = Seq.fill(CastStatsCollector.GiveUpAfter.toInt)("note")
    assert(collect(garbage :+ "12").casts === None)
    val almost = collect(garbage.tail :+ "12" :+ "N/A").casts.get
    assert(almost.exact === CastRange(1, Some(12L), Some(12L)))
    assert(almost.unparsed === CastStatsCollector.GiveUpAfter)
  }

  test("a time without a date, which the cast places on the current day, leaves the part without cast stats") {
    // CAST('12:30' AS TIMESTAMP) is today at 12:30: a bound recorded today is wrong tomorrow.
    for (t <- Seq("12:30", "T10:00:00", "23:59:59.5", "T1"))
      assert(collect(Seq("2026-01-05", "7", t)).casts === None, t)
    // Dates with a time, and values no cast reads as a time, keep them.
    assert(collect(Seq("2026-01-05 12:30", "Total: 7", "T", "12:xx")).casts.get.timestamp.count === 1)
  }

  test("cast stats round-trip exactly, extremes included") {
    val binary = new BinaryStatsCodec(Map(1 -> StringType))
    CastStatsSamples.all.foreach { c =>
      val inBinary = PartStats(10, 100, Map(1 -> ColumnStats(1, Some(UTF8String.fromString("a")), None, casts = Some(c))))
      assert(binary.decode(binary.encode(inBinary)) === inBinary)
    }
  }

  test("binary: views the decimal view gives back exactly are written empty, read back equal, and take less room") {
    val binary = new BinaryStatsCodec(Map(1 -> StringType))
    def bytes(c: CastStats) = binary.encode(PartStats(1, 1, Map(1 -> ColumnStats(0, None, None, casts = Some(c))))).length
    val columns = Seq(
      Seq("12", "-7", "123456789012345678", "0042"), // integers: exact, truncated and double derived
      Seq("1.50", "-0.25", "12.", ".5", "99.999"), // plain decimals: truncated and double derived
      Seq("12", "7.5", "1e3", "N/A"), // an exponent: every view its own
      Seq("9007199254740993", "1"), // the double rounds: derived all the same
      Seq("0.1", "-1.9"), // truncates towards zero
      Seq("-0", "0")) // -0.0 as a double is not what the decimal 0 gives: written whole
    columns.foreach { values =>
      val c = collect(values).casts.get
      val stats = PartStats(1, 1, Map(1 -> ColumnStats(0, None, None, casts = Some(c))))
      assert(binary.decode(binary.encode(stats)) === stats, values)
    }
    val integers = collect(columns.head).casts.get
    val whole = integers.copy(exact = integers.exact.copy(count = 3)) // no longer the decimal view's
    assert(bytes(integers) < bytes(whole) - 10, s"${bytes(integers)} vs ${bytes(whole)}")
    val stats = PartStats(1, 1, Map(1 -> ColumnStats(0, None, None, casts = Some(whole))))
    assert(binary.decode(binary.encode(stats)) === stats)
  }

  test("under the budget, cast stats are trimmed first, bounds and other columns kept") {
    val schema = ShardSchema.fromStruct(StructType(Seq(StructField("code", StringType), StructField("n", LongType))))
    val Seq(codeId, nId) = schema.columns.map(_.id)
    val code = collect(Seq("12", "7", "N/A"))
    assert(code.casts.isDefined)
    val stats = PartStats(3, 10, Map(codeId -> code, nId -> ColumnStats(0, Some(1L), Some(3L))))
    val withoutCasts = PartStats(3, 10, Map(codeId -> code.copy(casts = None), nId -> ColumnStats(0, Some(1L), Some(3L))))
    val size = new StatsBudget(schema, Set.empty, 0).encodedSize(withoutCasts.copy(trimmed = Set(codeId)))
    val fitted = new StatsBudget(schema, Set.empty, size)(stats)
    assert(fitted === withoutCasts.copy(trimmed = Set(codeId)))
    assert(new StatsBudget(schema, Set.empty, 0)(stats) eq stats)
    // Bound shortening keeps cast stats when they fit.
    val capped = BoundCap(code, StringType, 1)
    assert(capped.casts === code.casts)
  }
}
