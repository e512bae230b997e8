package sparkpersist.catalyst

import org.apache.spark.sql.internal.SQLConf

import sparkpersist.api.PythonApi
import sparkpersist.stats.{BinaryStatsCodec, JsonStats}
import sparkpersist.{EventTable, PersistConf, PersistSparkSession}

/**
 * What users get without changing a setting: the 17-column [[EventTable]], 12 days of 240 events
 * written one day per append (one part per day) with every setting at its default. Every part's
 * stats fit the default budget untrimmed, cast stats included, and each filter shape that the
 * stats can decide reads exactly the parts that hold its rows, with pushdown on as in soft mode
 * (failing on any violation) and off, in both ANSI modes where casts are involved.
 */
class DefaultSettingsPruningSuite extends PersistSparkSession {

  private val Days = 12
  private val RowsPerDay = 240

  override def beforeAll(): Unit = {
    super.beforeAll()
    (0 until Days).foreach { d =>
      val df = EventTable.rows(spark, d.toLong * RowsPerDay, (d + 1).toLong * RowsPerDay, RowsPerDay, 1)
      PythonApi.write(df, "events", null, null, null, null, java.util.List.of(EventTable.JsonColumns: _*), null)
      // The same payloads nested in a struct, an array and a map.
      PythonApi.write(df.selectExpr("event_id", "named_struct('p', payload) AS s", "array(payload) AS a",
        "map('k', payload) AS m"), "nested_events", null, null, null, null, null, null)
    }
  }

  /** Asserts `query` returns the rows `n` of `rows`, reading `kept` parts with pushdown on and every part off. */
  private def assertReads(query: String, rows: Seq[Long], kept: Int): Unit = {
    val (result, reports) = inEveryMode(query)
    assert(result === rows.map(n => s"[$n]").sorted, query)
    assert(reports("on").map(_.metrics.partsKept) === Seq(kept), query)
    assert(reports("soft").map(_.metrics.partsPruned) === Seq(Days - kept), query)
    assert(reports("off").map(_.metrics.partsKept) === Seq(Days), query)
  }

  private def inBothAnsiModes(body: => Unit): Unit =
    Seq("true", "false").foreach(ansi => withSQLConf(SQLConf.ANSI_ENABLED.key -> ansi)(body))

  private val all = 0L until Days.toLong * RowsPerDay

  test("every part's stats fit the default budget untrimmed, with the cast stats of text and JSON places") {
    val shard = store.open("events")
    val state = shard.state
    assert(state.partCount === Days)
    val codec = BinaryStatsCodec(state.schema)
    val sizes = state.parts.toSeq.map(p => codec.encode(p.stats.get).length)
    info(s"encoded stats per part: ${sizes.min} to ${sizes.max} bytes (budget ${PersistConf.StatsBudgetBytes.default})")
    val id = (name: String) => state.schema.column(name).get.id
    state.parts.foreach { p =>
      val stats = p.stats.get
      assert(stats.trimmed.isEmpty, s"part ${p.key}: trimmed ${stats.trimmed}")
      Seq("app_version", "price_text", "created_text", "status_code").foreach { c =>
        assert(stats.columns(id(c)).casts.isDefined, s"part ${p.key}: no cast stats for $c")
      }
      val jsonTs = stats.columns(id("payload_js")).nested.get.asInstanceOf[JsonStats].objects.keys("ts")
      val variantTs = stats.columns(id("payload")).nested.get.asInstanceOf[JsonStats].objects.keys("ts")
      assert(jsonTs.casts.isDefined && variantTs.casts.isDefined, s"part ${p.key}: no cast stats at $$.ts")
      Seq("payload_js", "payload").foreach { c =>
        val kind = stats.columns(id(c)).nested.get.asInstanceOf[JsonStats].objects.keys("kind")
        assert(kind.strings.members.isDefined, s"part ${p.key}: no filter of $c's kinds")
      }
    }
  }

  test("a cast of a text column, alone and next to a time window") {
    // price_text of row n is n / 100 with two decimals: 20.00 and above from row 2000 (day 8) on.
    inBothAnsiModes {
      assertReads("SELECT event_id FROM persist.events WHERE CAST(price_text AS DECIMAL(10,2)) >= 20.00",
        all.filter(_ >= 2000), kept = 4)
      assertReads("SELECT event_id FROM persist.events WHERE CAST(price_text AS DECIMAL(10,2)) >= 20.00 " +
        "AND event_ts < TIMESTAMP '2026-01-10 00:00:00'", all.filter(n => n >= 2000 && n < 9 * RowsPerDay), kept = 1)
      assertReads("SELECT event_id FROM persist.events WHERE CAST(created_text AS TIMESTAMP) >= TIMESTAMP '2026-01-11 00:00:00'",
        all.filter(_ >= 10 * RowsPerDay), kept = 2)
      assertReads("SELECT event_id FROM persist.events WHERE CAST(created_text AS TIMESTAMP_NTZ) >= " +
        "TIMESTAMP_NTZ '2026-01-11 00:00:00'", all.filter(_ >= 10 * RowsPerDay), kept = 2)
      assertReads("SELECT event_id FROM persist.events WHERE CAST(app_version AS DOUBLE) > 14", Nil, kept = 0)
      assertReads("SELECT event_id FROM persist.events WHERE try_cast(status_code AS INT) > 500", Nil, kept = 0)
    }
  }

  test("a JSON or VARIANT path that holds numbers and, in some rows, numeric strings") {
    val tenthDay = (EventTable.Start + 10 * 86400L) * 1000L
    val expected = all.filter(_ >= 10 * RowsPerDay)
    inBothAnsiModes {
      assertReads(s"SELECT event_id FROM persist.events WHERE variant_get(payload, '$$.ts', 'bigint') >= $tenthDay", expected, kept = 2)
      assertReads(s"SELECT event_id FROM persist.events WHERE CAST(get_json_object(payload_js, '$$.ts') AS BIGINT) >= $tenthDay",
        expected, kept = 2)
    }
    assertReads(s"SELECT event_id FROM persist.events WHERE payload:ts::bigint >= $tenthDay", expected, kept = 2)
  }

  test("a lookup of a value no part holds, inside every part's bounds: the automatic membership filters") {
    assertReads("SELECT event_id FROM persist.events WHERE country = 'ES'", Nil, kept = 0)
    assertReads("SELECT event_id FROM persist.events WHERE country IN ('ES', 'IT') AND device = 'web'", Nil, kept = 0)
    assertReads("SELECT event_id FROM persist.events WHERE status_code = '302'", Nil, kept = 0)
  }

  test("a lookup of a string no part holds at a JSON or VARIANT place: the places' automatic filters") {
    // Every part holds the kinds "buy" .. "view": "login" and "refund" lie inside every part's bounds.
    assertReads("SELECT event_id FROM persist.events WHERE payload:kind::string = 'login'", Nil, kept = 0)
    assertReads("SELECT event_id FROM persist.events WHERE variant_get(payload, '$.kind', 'string') IN ('login', 'refund')",
      Nil, kept = 0)
    assertReads("SELECT event_id FROM persist.events WHERE try_variant_get(payload, '$.kind', 'string') <=> 'login'", Nil, kept = 0)
    assertReads("SELECT event_id FROM persist.events WHERE get_json_object(payload_js, '$.kind') = 'refund'", Nil, kept = 0)
    assertReads("SELECT event_id FROM persist.events WHERE get_json_object(payload_js, '$.kind') = 'cart' AND " +
      "event_ts < TIMESTAMP '2026-01-02 00:00:00'", all.filter(n => n < RowsPerDay && n % EventTable.Kinds.size == 2), kept = 1)
  }

  test("a VARIANT nested in a struct, an array or a map: cast stats of its places too") {
    val tenthDay = (EventTable.Start + 10 * 86400L) * 1000L
    val expected = all.filter(_ >= 10 * RowsPerDay)
    inBothAnsiModes {
      Seq("variant_get(s.p, '$.ts', 'bigint')", "try_variant_get(a[0], '$.ts', 'bigint')",
        "variant_get(m['k'], '$.ts', 'bigint')").foreach { read =>
        assertReads(s"SELECT event_id FROM persist.nested_events WHERE $read >= $tenthDay", expected, kept = 2)
      }
    }
  }
}
