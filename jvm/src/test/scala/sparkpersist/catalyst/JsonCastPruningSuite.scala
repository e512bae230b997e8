package sparkpersist.catalyst

import org.apache.spark.sql.functions.{col, lit, parse_json}
import org.apache.spark.sql.internal.SQLConf

import sparkpersist.api.PythonApi
import sparkpersist.stats.JsonStats
import sparkpersist.{PersistConf, PersistSparkSession}

/**
 * Numbers written as text inside JSON documents prune end to end (issue 18's `ts` shape, at a
 * tenth of its size): 20 parts of 40 documents `{"ts": <epoch millis>}` held both as a VARIANT
 * `payload` and as JSON text `js`, with cast stats on. `ts` rises across parts; in 4 of the 800
 * documents (0.5%, parts 3, 8, 13 and 18) it is a numeric string such as `"1772003007"`. The
 * filters `ts > X` hold in the last 5 parts only, and read exactly those, with pushdown on as in
 * soft mode (failing on violations), in both ANSI modes; pushdown off reads every part.
 */
class JsonCastPruningSuite extends PersistSparkSession {

  private val Parts = 20
  private val Rows = 40
  private val Base = 1772000000000L
  private val WithText = Set(3, 8, 13, 18)
  private val FirstHolding = 15

  private def ts(part: Int, i: Int): Long = Base + part * 1000L + i

  private def doc(part: Int, i: Int): String =
    if (WithText(part) && i == 7) s"""{"ts": "${ts(part, i)}", "kind": "text"}"""
    else s"""{"ts": ${ts(part, i)}, "kind": "number"}"""

  override def beforeAll(): Unit = {
    super.beforeAll()
    withSQLConf(PersistConf.CastStats.key -> "true") {
      (0 until Parts).foreach { p =>
        val rows = (0 until Rows).map(i => (p * Rows + i).toLong -> doc(p, i))
        val df = spark.createDataFrame(rows).toDF("n", "js")
          .select(col("n"), parse_json(col("js")).as("payload"), col("js")).coalesce(1)
        PythonApi.write(df, "events", null, null, null, null, java.util.List.of("js"), null)
      }
    }
  }

  private val X = ts(FirstHolding, 0) - 1
  private val holding = (FirstHolding * Rows until Parts * Rows).map(n => s"[$n]")

  /** Asserts `query` returns the rows of the last parts, reading only them with pushdown on. */
  private def assertReadsHolding(query: String): Unit = {
    val (rows, reports) = inEveryMode(query)
    assert(rows === holding.sorted, query)
    assert(reports("on").map(_.metrics.partsKept) === Seq(Parts - FirstHolding), query)
    assert(reports("soft").map(_.metrics.partsPruned) === Seq(FirstHolding), query)
    assert(reports("off").map(_.metrics.partsKept) === Seq(Parts), query)
  }

  test("the parts with a numeric string ts record its casts at $.ts, in both columns") {
    val shard = store.open("events")
    assert(shard.state.partCount === Parts)
    val ids = Seq("payload", "js").map(shard.state.schema.column(_).get.id)
    val withCasts = shard.state.parts.toSeq.map { p =>
      ids.map(id => p.stats.get.columns(id).nested.get.asInstanceOf[JsonStats].objects.keys("ts").casts)
    }
    assert(withCasts.count(_.forall(_.isDefined)) === WithText.size)
    assert(withCasts.count(_.forall(_.isEmpty)) === Parts - WithText.size)
    withCasts.flatten.flatten.foreach { c =>
      assert(c.exact.count === 1 && c.unparsed === 0, c)
    }
  }

  test("variant_get(payload, '$.ts', 'bigint') > X reads only the parts holding rows, in every form") {
    for (ansi <- Seq("true", "false")) {
      withSQLConf(SQLConf.ANSI_ENABLED.key -> ansi) {
        assertReadsHolding(s"SELECT n FROM persist.events WHERE variant_get(payload, '$$.ts', 'bigint') > $X")
      }
    }
    assertReadsHolding(s"SELECT n FROM persist.events WHERE try_variant_get(payload, '$$.ts', 'bigint') > $X")
    assertReadsHolding(s"SELECT n FROM persist.events WHERE payload:ts::bigint > $X")
  }

  test("CAST(get_json_object(js, '$.ts') AS BIGINT) > X reads only the parts holding rows") {
    for (ansi <- Seq("true", "false")) {
      withSQLConf(SQLConf.ANSI_ENABLED.key -> ansi) {
        assertReadsHolding(s"SELECT n FROM persist.events WHERE CAST(get_json_object(js, '$$.ts') AS BIGINT) > $X")
      }
    }
    assertReadsHolding(s"SELECT n FROM persist.events WHERE try_cast(get_json_object(js, '$$.ts') AS BIGINT) > $X")
  }

  test("a filter no part can satisfy reads none; an equality with a text value reads its part only") {
    val (none, noReports) = inEveryMode(s"SELECT n FROM persist.events WHERE payload:ts::bigint > ${ts(Parts, 0)}")
    assert(none.isEmpty)
    assert(noReports("on").map(_.metrics.partsKept) === Seq(0))
    // Part 13's text "1772013007": part 13 alone may hold it.
    val (one, oneReports) = inEveryMode(
      s"SELECT n FROM persist.events WHERE CAST(get_json_object(js, '$$.ts') AS BIGINT) = ${ts(13, 7)}")
    assert(one === Seq(s"[${13 * Rows + 7}]"))
    assert(oneReports("on").map(_.metrics.partsKept) === Seq(1))
  }
}
