package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.schema.ShardSchema
import sparkpersist.stats.{ColumnStats, PartStats}

/** Deciding parts from their stats, on expressions built directly (as the rule will pass them). */
class PartFilterSuite extends AnyFunSuite {
  private val schema = ShardSchema.fromStruct(StructType(Seq(
    StructField("event_ts", TimestampType), StructField("country", StringType))))
  private val ts = AttributeReference("event_ts", TimestampType)()
  private val country = AttributeReference("country", StringType)()
  private val ids = AttributeMap(Seq(ts -> 1, country -> 2))
  private val day = 86400L * 1000000L

  // mz_now() <= event_ts + INTERVAL 30 DAYS AND country = 'US'
  private val condition = And(
    LessThanOrEqual(MzNow(), TimestampAddInterval(ts, Literal(30 * day, DayTimeIntervalType()), Some("UTC"))),
    EqualTo(country, Literal("US")))

  private def part(tsLo: Long, tsHi: Long, cLo: String, cHi: String) = PartStats(10, 100, Map(
    1 -> ColumnStats(0, Some(tsLo), Some(tsHi)),
    2 -> ColumnStats(0, Some(UTF8String.fromString(cLo)), Some(UTF8String.fromString(cHi)))))

  test("keeps a part iff the filter may be true over its stats") {
    val asOf = 100 * day
    val filter = PartFilter.compile(condition, ids, schema, MzNowSpec.at(asOf))
    assert(filter.columnIds == Seq(1, 2))
    assert(filter.keep(part(75 * day, 80 * day, "AR", "ZA")))
    assert(!filter.keep(part(60 * day, 69 * day, "AR", "ZA")))
    assert(filter.keep(part(60 * day, 70 * day, "US", "US")))
    assert(!filter.keep(part(75 * day, 80 * day, "AR", "UR")))
    // A continuous read keeps old parts' future: mz_now() only grows, so the window only closes.
    assert(!PartFilter.compile(condition, ids, schema, MzNowSpec.since(asOf))
      .keep(part(60 * day, 69 * day, "AR", "ZA")))
    assert(PartFilter.compile(condition, ids, schema, MzNowSpec.since(asOf))
      .keep(part(75 * day, 80 * day, "AR", "ZA")))
  }

  test("missing, all-null, corrupt stats and empty parts") {
    val filter = PartFilter.compile(condition, ids, schema, MzNowSpec.at(100 * day))
    assert(filter.keep(PartStats(10, 100, Map.empty)))
    assert(!filter.keep(PartStats(10, 100, Map(1 -> ColumnStats(10, None, None)))))
    assert(filter.keep(PartStats(10, 100, Map(1 -> ColumnStats(0, Some("not a timestamp"), Some(5L))))))
    assert(!filter.keep(PartStats(0, 0, Map(1 -> ColumnStats(0, None, None), 2 -> ColumnStats(0, None, None)))))
  }

  test("attributes outside the shard admit anything; unknown expressions keep every part") {
    val other = AttributeReference("other", IntegerType)()
    val onOther = PartFilter.compile(EqualTo(other, Literal(1)), ids, schema, MzNowSpec.at(0L))
    assert(onOther.columnIds.isEmpty)
    assert(onOther.keep(PartStats(10, 100, Map.empty)))
    val udfLike = EqualTo(Rand(Literal(1L)), Literal(2.0))
    assert(PartFilter.compile(udfLike, ids, schema, MzNowSpec.at(0L)).keep(part(0L, 1L, "A", "B")))
  }
}
