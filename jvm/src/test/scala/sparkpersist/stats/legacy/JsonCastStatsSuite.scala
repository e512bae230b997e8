package sparkpersist.stats
package legacy

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/** Cast stats in the legacy JSON (read-only in sparkpersist), written by the tests' [[LegacyStatsJson]]. */
class JsonCastStatsSuite extends AnyFunSuite {

  private val codec = new LegacyStatsJson(Map(1 -> StringType, 2 -> LongType))

  test("cast stats round-trip exactly, extremes included; views that accept nothing are left out") {
    CastStatsSamples.all.foreach { c =>
      val stats = PartStats(10, 100, Map(1 -> ColumnStats(1, Some(UTF8String.fromString("a")), None, casts = Some(c))))
      assert(codec.decode(codec.encode(stats)) === stats)
    }
    assert(!codec.encode(PartStats(1, 1, Map(1 -> ColumnStats(0, None, None, casts = Some(CastStatsSamples.sparse)))))
      .contains("exact"))
  }

  test("stats written before cast stats still decode; damaged cast stats are dropped alone") {
    val old = """{"rows":5,"bytes":9,"columns":{"1":{"type":"string","nulls":1,"lower":"a","upper":"b"}},"trimmed":[]}"""
    assert(codec.decode(old) === PartStats(5, 9, Map(1 -> ColumnStats(1, Some(UTF8String.fromString("a")),
      Some(UTF8String.fromString("b"))))))
    val damaged = Seq(
      """{"unparsed":0,"exact":{"count":1,"lower":1,"upper":1}}""", // no zone
      """{"zone":"UTC","unparsed":0,"exact":{"count":1,"lower":1}}""", // one bound
      """{"zone":"UTC","unparsed":0,"exact":{"count":0}}""", // an empty view
      """{"zone":"UTC","unparsed":0,"decimal":{"count":1,"lower":"x","upper":"1"}}""",
      """{"zone":"UTC","unparsed":-1}""")
    damaged.foreach { casts =>
      val json = s"""{"rows":5,"bytes":9,"columns":{"1":{"type":"string","nulls":1,"lower":"a","casts":$casts}}}"""
      assert(codec.decode(json).columns(1) === ColumnStats(1, Some(UTF8String.fromString("a")), None), casts)
    }
    // Cast stats under a column that is not a string are ignored.
    val onLong = """{"rows":5,"bytes":9,"columns":{"2":{"type":"bigint","nulls":0,"lower":1,"upper":2,""" +
      """"casts":{"zone":"UTC","unparsed":0,"exact":{"count":5,"lower":1,"upper":2}}}}}"""
    assert(codec.decode(onLong).columns(2).casts === None)
  }

  test("a JSON place's damaged cast stats are dropped alone") {
    val cs = CastStats("UTC", CastRange(2, Some(1L), Some(9L)), CastRange.none, CastRange.none, CastRange.none,
      CastRange.none, CastRange.none, 1)
    val strings = JsonStats.empty.copy(count = 3, strings = JsonScalarStats(3, None, None))
    val node = LegacyStatsJson.writeDocument(strings.copy(casts = Some(cs)))
    assert(JsonDocumentStatsReader.read(node) === Some(strings.copy(casts = Some(cs))))
    node.get("casts").asInstanceOf[com.fasterxml.jackson.databind.node.ObjectNode].put("zone", 5)
    assert(JsonDocumentStatsReader.read(node) === Some(strings))
  }
}
