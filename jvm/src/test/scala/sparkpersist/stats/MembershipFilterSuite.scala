package sparkpersist.stats

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

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
    // Past the size cap a Bloom filter fills up: more false positives, still no false negatives.
    val capped = filterOf(0L until 100000L)
    assert(MembershipCodec.encode(capped).length <= MembershipFilter.MaxBloomBytes + 7)
  }

  test("SQL-equal values hash alike: -0.0 and 0.0, every NaN, integral widths") {
    assert(MembershipFilter.hash(-0.0) === MembershipFilter.hash(0.0))
    assert(MembershipFilter.hash(Double.NaN) === MembershipFilter.hash(java.lang.Double.longBitsToDouble(0x7ff0000000000001L)))
    assert(MembershipFilter.hash(Float.NaN) === MembershipFilter.hash(Double.NaN))
    assert(MembershipFilter.hash(-0.0f) === MembershipFilter.hash(0.0))
    assert(MembershipFilter.hash(7) === MembershipFilter.hash(7L))
    assert(MembershipFilter.hash(1.0) !== MembershipFilter.hash(1L))
    assert(MembershipFilter.supports(StringType))
    assert(!MembershipFilter.supports(StringType("UTF8_LCASE")))
    assert(!MembershipFilter.supports(DecimalType(10, 2)))
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

  test("the collector hashes what the row holds, as constants are hashed") {
    val rows = Seq(InternalRow(UTF8String.fromString("a"), -0.0, 3), InternalRow(null, Double.NaN, 4))
    val collectors = Seq(StringType, DoubleType, DateType).map(new MembershipCollector(_))
    rows.foreach(r => collectors.zipWithIndex.foreach { case (c, i) => c.update(r, i) })
    val Seq(s, d, dt) = collectors.map(_.result().get)
    assert(s.mayContain(MembershipFilter.hash(UTF8String.fromString("a"))))
    assert(!s.mayContain(MembershipFilter.hash(UTF8String.fromString("b"))))
    assert(d.mayContain(MembershipFilter.hash(0.0)) && d.mayContain(MembershipFilter.hash(Double.NaN)))
    assert(dt.mayContain(MembershipFilter.hash(3)) && !dt.mayContain(MembershipFilter.hash(5)))
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
    val codec = StatsCodec(schema)
    assert(codec.decode(codec.encode(stats)) === stats)
    // The budget drops filters first; a named (kept) column's filter goes last.
    val tight = new StatsBudget(schema, Set.empty, codec.binary.encode(stats).length - 1L)(stats)
    assert(tight.columns(ids(0)).members.isEmpty && tight.columns(ids(0)).lower.isDefined)
    assert(tight.trimmed === Set(ids(0)))
  }
}
