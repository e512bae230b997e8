package sparkpersist.stats

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import sparkpersist.stats.legacy.LegacyStatsJson

/** Membership filters: no false negatives, SQL equality of hashes, the byte codec, the collector. */
class MembershipFilterSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  private def filterOf(values: Seq[Long]) = MembershipFilter.of(values.map(MembershipFilter.hash).distinct.sorted.toArray)

  test("a filter contains every value it was built from, exact or Bloom") {
    forAll(Gen.choose(0, 3000).flatMap(n => Gen.listOfN(n, Gen.choose(Long.MinValue, Long.MaxValue)))) { values =>
      val f = filterOf(values)
      assert(f.isInstanceOf[MembershipFilter.Exact] == (values.distinct.size <= MembershipFilter.ExactLimit))
      values.foreach(v => assert(f.mayContain(MembershipFilter.hash(v)), v))
    }
  }

  test("exact sets reject other values; Bloom filters reject about 99% of them") {
    val exact = filterOf(0L until 64L)
    assert((64L until 10064L).count(v => exact.mayContain(MembershipFilter.hash(v))) === 0)
    val bloom = filterOf(0L until 1000L)
    assert(bloom.isInstanceOf[MembershipFilter.Bloom])
    val falsePositives = (1000L until 101000L).count(v => bloom.mayContain(MembershipFilter.hash(v)))
    assert(falsePositives < 2000, s"$falsePositives false positives in 100000")
    // Past the size cap a Bloom filter fills up: more false positives, still no false negatives,
    // and fewer probes keep them as few as its bits allow (3.3 bits per value, 2 probes: about 21%).
    val capped = filterOf(0L until 100000L)
    assert(MembershipCodec.encode(capped).length <= MembershipFilter.MaxBloomBytes + 7)
    val full = filterOf(0L until 20000L)
    assert((0L until 20000L).forall(v => full.mayContain(MembershipFilter.hash(v))))
    val fullPositives = (20000L until 120000L).count(v => full.mayContain(MembershipFilter.hash(v)))
    assert(fullPositives < 23000, s"$fullPositives false positives in 100000")
  }

  test("SQL-equal values hash alike: -0.0 and 0.0, every NaN, integral widths") {
    assert(MembershipFilter.hash(-0.0) === MembershipFilter.hash(0.0))
    assert(MembershipFilter.hash(Double.NaN) === MembershipFilter.hash(java.lang.Double.longBitsToDouble(0x7ff0000000000001L)))
    assert(MembershipFilter.hash(Float.NaN) === MembershipFilter.hash(Double.NaN))
    assert(MembershipFilter.hash(-0.0f) === MembershipFilter.hash(0.0))
    assert(MembershipFilter.hash(7) === MembershipFilter.hash(7L))
    assert(MembershipFilter.hash(1.0) !== MembershipFilter.hash(1L))
    assert(MembershipFilter.supports(StringType))
    assert(MembershipFilter.supports(StringType("UTF8_LCASE")) && MembershipFilter.supports(StringType("UNICODE_CI")))
    assert(MembershipFilter.supports(StringType("UTF8_LCASE_RTRIM")), "the sort key trims as the comparator")
    assert(MembershipFilter.supports(DecimalType(10, 2)))
    assert(MembershipFilter.hash(Decimal("1.0")) === MembershipFilter.hash(Decimal("1.00")))
    assert(MembershipFilter.hash(Decimal("0.000")) === MembershipFilter.hash(Decimal(0)))
    assert(MembershipFilter.hash(Decimal("1.0")) !== MembershipFilter.hash(Decimal("10")))
    assert(MembershipFilter.hash(Decimal("-1.5")) !== MembershipFilter.hash(Decimal("1.5")))
  }

  test("the codec round-trips and rejects corrupt bytes") {
    for (f <- Seq(filterOf(Seq(1L, 2L, 3L)), filterOf(0L until 500L), filterOf(Nil))) {
      assert(MembershipCodec.decode(MembershipCodec.encode(f)) === Some(f))
    }
    val bytes = MembershipCodec.encode(filterOf(Seq(1L, 2L, 3L)))
    assert(MembershipCodec.decode(bytes.dropRight(1)) === None)
    assert(MembershipCodec.decode(Array[Byte](9) ++ bytes.drop(1)) === None)
    assert(MembershipCodec.decode(Array.emptyByteArray) === None)
    // Unsorted exact hashes are not a filter this codec wrote.
    val unsorted = MembershipCodec.encode(MembershipFilter.Exact(Array(5L, 1L)))
    assert(MembershipCodec.decode(unsorted) === None)
  }

  test("the collector hashes what the row holds, as constants are hashed, from generic and unsafe rows") {
    val types = Seq[DataType](StringType, DoubleType, DateType, DecimalType(38, 2))
    val rows = Seq(InternalRow(UTF8String.fromString("a"), -0.0, 3, Decimal("2.50")),
      InternalRow(null, Double.NaN, 4, Decimal("30000000000000000000000000.00")),
      InternalRow(UTF8String.fromString("a longer string, é"), 1.0, 5, Decimal("1.00")))
    val toUnsafe = UnsafeProjection.create(types.toArray)
    Seq[InternalRow => InternalRow](identity, toUnsafe(_)).foreach { as =>
      val collectors = types.map(new MembershipCollector(_))
      rows.foreach(r => collectors.zipWithIndex.foreach { case (c, i) => c.update(as(r), i) })
      val Seq(s, d, dt, dec) = collectors.map(_.result().get)
      assert(dec.mayContain(MembershipFilter.hash(Decimal("2.5"))) && !dec.mayContain(MembershipFilter.hash(Decimal("2.05"))))
      assert(dec.mayContain(MembershipFilter.hash(Decimal(BigDecimal("3E25")))))
      assert(s.mayContain(MembershipFilter.hash(UTF8String.fromString("a"))))
      assert(s.mayContain(MembershipFilter.hash(UTF8String.fromString("a longer string, é"))))
      assert(!s.mayContain(MembershipFilter.hash(UTF8String.fromString("b"))))
      assert(d.mayContain(MembershipFilter.hash(0.0)) && d.mayContain(MembershipFilter.hash(Double.NaN)))
      assert(dt.mayContain(MembershipFilter.hash(3)) && !dt.mayContain(MembershipFilter.hash(6)))
    }
  }

  test("part stats carry filters of indexed columns through the stats codec") {
    import sparkpersist.schema.ShardSchema
    val schema = ShardSchema.fromStruct(StructType(Seq(StructField("id", LongType), StructField("s", StringType))))
    val ids = schema.columns.map(_.id)
    val collector = new PartStatsCollector(ids.toArray, schema.columns.map(_.dataType).toArray,
      TimeStamp.Stamped(0L), 16, indexed = _ == 0)
    (0L until 10L).foreach(i => collector.update(InternalRow(i * 1000, UTF8String.fromString(s"s$i"))))
    val stats = collector.result(100L)
    assert(stats.columns(ids(0)).members.isDefined)
    assert(stats.columns(ids(1)).members.isEmpty)
    val codec = LegacyStatsJson(schema)
    assert(codec.decode(codec.encode(stats)) === stats)
    // The budget drops filters first, of a column not named as an index (even a kept one) without
    // counting it as trimmed; a named index's filter goes last, and is a trim.
    val tight = BinaryStatsCodec(schema).encode(stats).length - 1L
    for (keep <- Seq(Set.empty[Int], Set(ids(0)))) {
      val fitted = new StatsBudget(schema, keep, tight)(stats)
      assert(fitted.columns(ids(0)).members.isEmpty && fitted.columns(ids(0)).lower.isDefined)
      assert(fitted.trimmed === Set.empty)
    }
    val named = new StatsBudget(schema, Set(ids(0)), tight, indexed = Set(ids(0)))(stats)
    assert(named.columns(ids(0)).members.isDefined, "the other column's bounds go first")
    assert(named.trimmed === Set(ids(1)))
  }

  test("the collector keeps distinct hashes and gives up past its limit") {
    val c = new MembershipCollector(LongType, limit = 5)
    Seq(0L, 1L, 0L, 2L, 1L, 3L, 4L).foreach(v => c.update(InternalRow(v), 0))
    assert(c.distinct === Some(5))
    assert(c.result().get === filterOf(0L until 5L))
    c.update(InternalRow(5L), 0)
    assert(c.distinct === None && c.result() === None)
    // Without a limit short of the collector's own, many values (and the zero hash's slot) are kept.
    val big = new MembershipCollector(LongType)
    (0L until 100000L).foreach(v => big.update(InternalRow(v % 70000), 0))
    assert(big.distinct === Some(70000))
  }

  test("automatic filters: candidate columns, and only where they tell more than the bounds") {
    import sparkpersist.schema.ColumnDef
    val json = new MetadataBuilder().putBoolean("sparkpersist.json", true).build()
    assert(AutoIndex.candidate(ColumnDef(1, "user_id", LongType, nullable = true)))
    assert(AutoIndex.candidate(ColumnDef(1, "session", StringType, nullable = true)))
    assert(!AutoIndex.candidate(ColumnDef(1, "created_at", LongType, nullable = true)), "time-like by name")
    assert(!AutoIndex.candidate(ColumnDef(1, "day", DateType, nullable = true)))
    assert(!AutoIndex.candidate(ColumnDef(1, "x", DoubleType, nullable = true)))
    assert(AutoIndex.candidate(ColumnDef(1, "account", DecimalType(20, 0), nullable = true)))
    assert(!AutoIndex.candidate(ColumnDef(1, "price", DecimalType(10, 2), nullable = true)), "amounts are ranges")
    assert(AutoIndex.candidate(ColumnDef(1, "s", StringType("UTF8_LCASE"), nullable = true)))
    assert(AutoIndex.candidate(ColumnDef(1, "s", StringType("UNICODE_RTRIM"), nullable = true)))
    assert(!AutoIndex.candidate(ColumnDef(1, "js", StringType, nullable = true, json)))
    def stats(lo: Any, hi: Any) = ColumnStats(0, Some(lo), Some(hi))
    assert(!AutoIndex.informative(stats(5L, 5L), 1), "one value: the bounds say it")
    assert(!AutoIndex.informative(stats(1, 10), 10), "every integer between the bounds is present")
    assert(AutoIndex.informative(stats(1, 10), 9))
    assert(AutoIndex.informative(stats(Long.MinValue, Long.MaxValue), 2), "no overflow in the range")
    assert(AutoIndex.informative(stats(UTF8String.fromString("a"), UTF8String.fromString("b")), 2))
    assert(AutoIndex.informative(ColumnStats(0, None, None), 2))
  }

  test("automatic filters are collected within their limit, skipped where uninformative") {
    import sparkpersist.schema.ShardSchema
    val schema = ShardSchema.fromStruct(StructType(Seq(StructField("user", LongType), StructField("seq", LongType),
      StructField("s", StringType), StructField("named", LongType))))
    val ids = schema.columns.map(_.id)
    def collect(rows: Int, autoValues: Int) = {
      val collector = new PartStatsCollector(ids.toArray, schema.columns.map(_.dataType).toArray,
        TimeStamp.Stamped(0L), 16, indexed = _ == 3, autoIndexed = _ < 3, autoIndexValues = autoValues)
      (0 until rows).foreach(i => collector.update(InternalRow(i * 1000L, i.toLong, UTF8String.fromString(s"s${i % 7}"), 7L)))
      collector.result(100L)
    }
    val small = collect(10, 256)
    assert(small.columns(ids(0)).members.isDefined, "sparse user ids")
    assert(small.columns(ids(1)).members.isEmpty, "dense sequence: the bounds say it all")
    assert(small.columns(ids(2)).members.isDefined)
    assert(small.columns(ids(3)).members.isDefined, "a named column gets its filter even with one value")
    val large = collect(300, 256)
    assert(large.columns(ids(0)).members.isEmpty, "300 distinct values: past the limit")
    assert(large.columns(ids(2)).members.isDefined, "7 distinct strings")
    assert(collect(10, 0).columns.values.count(_.members.isDefined) === 1, "0 turns automatic filters off")
  }
}
