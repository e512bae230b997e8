package sparkpersist.catalyst

import org.apache.spark.sql.functions.{col, lit, parse_json}

import sparkpersist.api.PythonApi
import sparkpersist.scan.ScanReports
import sparkpersist.schema.JsonColumns
import sparkpersist.stats.JsonStats
import sparkpersist.{PersistConf, PersistSparkSession}

/**
 * Pruning on JSON documents end to end: a shard with a VARIANT column `payload` and a STRING
 * column `js` declared JSON (by the writer option), one part per write. Every query runs with
 * pushdown `on`, `soft` (failing on violations) and `off`; results must agree and the parts read
 * are asserted exactly.
 *
 * Parts (documents `{"ts": ..., "kind": ...}`, the same in both columns):
 *  0. ts 1000..1009 (integers)            1. ts 2000..2009
 *  2. ts 3000..3009, one row's ts is a string "3005"
 *  3. ts 4000..4009, `ts` missing in half the rows
 *  4. ts 5000..5009, one row with ts 5000.5 (a decimal) and one with ts a JSON null
 *
 * The parts are written without cast stats, as releases before them wrote (and as a shard written
 * with `spark.sparkpersist.stats.castStats=false` is): a string at a place makes the casts of
 * that place "anything". [[JsonCastPruningSuite]] and [[DefaultSettingsPruningSuite]] read them
 * with cast stats, which the defaults collect.
 */
class JsonPruningSuite extends PersistSparkSession {

  private val Parts = 5

  private def doc(part: Int, i: Int): String = {
    val ts = 1000 * (part + 1) + i
    (part, i) match {
      case (2, 5) => s"""{"ts": "$ts", "kind": "odd"}"""
      case (3, _) if i % 2 == 1 => s"""{"kind": "no ts"}"""
      case (4, 1) => s"""{"ts": $ts.5, "kind": "decimal"}"""
      case (4, 2) => s"""{"ts": null, "kind": "null"}"""
      case _ => s"""{"ts": $ts, "kind": "plain"}"""
    }
  }

  override def beforeAll(): Unit = {
    super.beforeAll()
    (0 until Parts).foreach { p =>
      val rows = (0 until 10).map(i => (p * 10 + i).toLong -> doc(p, i))
      val df = spark.createDataFrame(rows).toDF("n", "js")
        .select(col("n"), parse_json(col("js")).as("payload"), col("js")).coalesce(1)
      withSQLConf(PersistConf.CastStats.key -> "false") {
        PythonApi.write(df, "docs", null, null, null, null, java.util.List.of("js"), null)
      }
    }
  }

  /** Asserts `query` returns `expected` (sorted `n`s) and reads `kept` parts with pushdown on. */
  private def assertReads(query: String, kept: Int, expected: Seq[Long]): Unit = {
    val (rows, reports) = inEveryMode(query)
    assert(rows === expected.sorted.map(n => s"[$n]").sortBy(identity), query)
    assert(reports("on").map(_.metrics.partsKept) === Seq(kept), query)
    assert(reports("soft").map(_.metrics.partsPruned) === Seq(Parts - kept), query)
    assert(reports("off").map(_.metrics.partsKept) === Seq(Parts), query)
  }

  test("the shard records js as JSON and every part has JSON stats for both columns") {
    val shard = store.open("docs")
    assert(JsonColumns.declared(shard.state.schema) === Seq("js"))
    val ids = Seq("payload", "js").map(shard.state.schema.column(_).get.id)
    shard.state.parts.foreach { p =>
      ids.foreach(id => assert(p.stats.get.columns(id).nested.exists(_.isInstanceOf[JsonStats]), s"$id in $p"))
    }
    val e = intercept[IllegalArgumentException](PythonApi.write(
      spark.range(1).select(col("id").as("n"), parse_json(lit("{}")).as("payload"), lit("{}").as("js")),
      "docs", null, null, null, null, java.util.List.of("n"), null))
    assert(e.getMessage === "[PERSIST_INVALID_WRITE] Cannot write to shard 'docs': its JSON columns are (js), fixed when the shard was " +
      "created; json_columns (n) differs. Omit json_columns or pass exactly those. SQLSTATE: 42000")
  }

  test("variant_get(payload, '$.ts', 'bigint') > X prunes parts whose ts are all numbers on the other side") {
    // Part 2 is kept: its string "3005" casts to a number the stats cannot bound.
    assertReads("SELECT n FROM persist.docs WHERE variant_get(payload, '$.ts', 'bigint') > 5007", kept = 2,
      expected = Seq(48L, 49L))
    assertReads("SELECT n FROM persist.docs WHERE variant_get(payload, '$.ts', 'bigint') < 1003", kept = 2,
      expected = Seq(0L, 1L, 2L))
    // 5000.5 truncates to 5000: part 4 stays within [5000, 5009].
    assertReads("SELECT n FROM persist.docs WHERE variant_get(payload, '$.ts', 'int') BETWEEN 4009 AND 4999",
      kept = 1, expected = Nil)
  }

  test("payload:ts::bigint against mz_now(): missing keys alone do not keep a part") {
    // The window [4000, ...) keeps parts 3 and 4 (part 3's missing ts are null, which drops the row,
    // and its other ts are in the window), and part 2, whose string "3005" might cast to anything.
    val window = store.open("docs").state.upper - 1 - 4000
    assertReads(s"SELECT n FROM persist.docs WHERE payload:ts::bigint >= unix_millis(mz_now()) - $window",
      kept = 3, expected = Seq(30L, 32L, 34L, 36L, 38L) ++ (40L to 49L).filterNot(_ == 42L))
    // Above 4008 part 3 goes too: its missing ts never make a row pass.
    assertReads(s"SELECT n FROM persist.docs WHERE payload:ts::bigint >= unix_millis(mz_now()) - $window + 9",
      kept = 2, expected = (40L to 49L).filterNot(_ == 42L))
  }

  test("CAST(get_json_object(js, '$.ts') AS BIGINT) > X prunes; a string or a decimal ts keeps its part") {
    // Part 4 has 5001.5 (ANSI refuses '5001.5' as BIGINT): kept, and the query raises as unpruned.
    Seq("on", "off").foreach { mode =>
      withSQLConf(PersistConf.PushdownMode.key -> mode) {
        val e = intercept[Exception](sql(
          "SELECT n FROM persist.docs WHERE CAST(get_json_object(js, '$.ts') AS BIGINT) < 2005").collect())
        assert(e.getMessage.contains("CAST_INVALID_INPUT"), mode)
        assert(ScanReports.last(spark).map(_.metrics.partsKept) === Seq(if (mode == "on") 4 else Parts))
      }
    }
    // Without ANSI, '5001.5' reads as 5001: part 4 goes; part 2 ("3005" may be any number) stays.
    withSQLConf("spark.sql.ansi.enabled" -> "false") {
      assertReads("SELECT n FROM persist.docs WHERE CAST(get_json_object(js, '$.ts') AS BIGINT) < 2005", kept = 3,
        expected = (0L to 14L))
    }
    assertReads("SELECT n FROM persist.docs WHERE TRY_CAST(get_json_object(js, '$.ts') AS BIGINT) > 4500", kept = 2,
      expected = (40L to 49L).filterNot(n => n == 41L || n == 42L))
  }

  test("a string that does not cast raises INVALID_VARIANT_CAST whatever the ANSI mode: nothing is pruned") {
    for (mode <- Seq("on", "off"); ansi <- Seq("true", "false")) {
      withSQLConf(PersistConf.PushdownMode.key -> mode, "spark.sql.ansi.enabled" -> ansi) {
        val e = intercept[Exception](sql(
          "SELECT n FROM persist.docs WHERE variant_get(payload, '$.kind', 'bigint') > 0").collect())
        assert(e.getMessage.contains("INVALID_VARIANT_CAST"), s"$mode $ansi")
        assert(ScanReports.last(spark).map(_.metrics.partsKept) === Seq(Parts))
      }
    }
    // try_variant_get turns it into null; the string "3005" reads as 3005.
    assertReads("SELECT n FROM persist.docs WHERE try_variant_get(payload, '$.ts', 'bigint') >= 3004 AND " +
      "try_variant_get(payload, '$.ts', 'bigint') <= 3006", kept = 1, expected = Seq(24L, 25L, 26L))
  }

  test("variant_get(parse_json(js), ...) prunes as the VARIANT column does: the text stats, read as parse_json reads them") {
    assertReads("SELECT n FROM persist.docs WHERE variant_get(parse_json(js), '$.ts', 'bigint') > 5007", kept = 2,
      expected = Seq(48L, 49L))
    assertReads("SELECT n FROM persist.docs WHERE parse_json(js):ts::bigint < 1003", kept = 2, expected = Seq(0L, 1L, 2L))
    assertReads("SELECT n FROM persist.docs WHERE try_variant_get(try_parse_json(js), '$.ts', 'bigint') >= 3004 AND " +
      "try_variant_get(try_parse_json(js), '$.ts', 'bigint') <= 3006", kept = 1, expected = Seq(24L, 25L, 26L))
  }

  test("a part with a value parse_json refuses (a duplicate key deeper than the JSON stats go) is kept") {
    val deep = "{\"ts\": 105, \"d\": " + "{\"a\": " * 40 + "{\"k\": 1, \"k\": 2}" + "}" * 40 + "}"
    Seq((0L to 9L).map(n => n -> s"""{"ts": $n}"""), (100L to 108L).map(n => n -> s"""{"ts": $n}""") :+ (109L -> deep))
      .foreach { rows =>
        PythonApi.write(spark.createDataFrame(rows).toDF("n", "js").coalesce(1), "dups", null, null, null, null,
          java.util.List.of("js"), null)
      }
    val shard = store.open("dups")
    val js = shard.state.schema.column("js").get.id
    assert(shard.state.parts.toSeq.flatMap(_.stats.get.columns(js).variantParse.map(_.parsed)).sorted === Seq(9L, 10L))
    for (mode <- Seq("on", "off")) {
      withSQLConf(PersistConf.PushdownMode.key -> mode) {
        val e = intercept[Exception](sql(
          "SELECT n FROM persist.dups WHERE variant_get(parse_json(js), '$.ts', 'bigint') > 50").collect())
        assert(e.getMessage.contains("MALFORMED_RECORD_IN_PARSING"), mode) // parse_json reports the duplicate key so
        assert(ScanReports.last(spark).map(_.metrics.partsKept) === Seq(if (mode == "on") 1 else 2), mode)
      }
    }
    val (rows, reports) = inEveryMode(
      "SELECT n FROM persist.dups WHERE try_variant_get(try_parse_json(js), '$.ts', 'bigint') > 50")
    assert(rows === (100L to 108L).map(n => s"[$n]"))
    assert(reports("on").map(_.metrics.partsKept) === Seq(1))
    assert(reports("off").map(_.metrics.partsKept) === Seq(2))
  }

  test("a VARIANT read of an object whose keys became equal (a lone surrogate stored as '?') raises: its part is kept") {
    // The lone surrogate U+D800 (a JSON escape) and "?" are distinct keys to parse_json, but the surrogate
    // is stored as '?': rebuilding the object (any variant_get with a VARIANT result) finds a duplicate key.
    // Spark 4.2 and later refuse lone surrogates in parse_json unless told not to validate them.
    Seq((0L to 4L).map(n => n -> s"""{"o": {"a": $n}}"""), Seq(5L -> ("""{"o": {"""" + "\\" + """ud800": 1, "?": 2, "a": 100}}""")))
      .foreach { rows =>
        withSQLConf("spark.sql.variant.validateUnicodeInJsonParsing" -> "false") {
          PythonApi.write(spark.createDataFrame(rows).toDF("n", "js").select(col("n"), parse_json(col("js")).as("v"))
            .coalesce(1), "surrogates", null, null, null, null, null, null)
        }
      }
    for (query <- Seq("variant_get(v, '$.o') IS NULL", "variant_get(v, '$') IS NULL", "v:o::string = 'x'");
         mode <- Seq("on", "off")) {
      withSQLConf(PersistConf.PushdownMode.key -> mode) {
        val e = intercept[Exception](sql(s"SELECT n FROM persist.surrogates WHERE $query").collect())
        assert(e.getMessage.contains("VARIANT_DUPLICATE_KEY"), s"$query $mode")
        assert(ScanReports.last(spark).map(_.metrics.partsKept) === Seq(2), s"$query $mode")
      }
    }
    // Scalars are rebuilt without looking at keys: reads of them still prune.
    val (rows, reports) = inEveryMode("SELECT n FROM persist.surrogates WHERE variant_get(v, '$.o.a') IS NOT NULL " +
      "AND variant_get(v, '$.o.a', 'int') < 3")
    assert(rows === Seq("[0]", "[1]", "[2]"))
    assert(reports("on").map(_.metrics.partsKept) === Seq(1))
  }

  test("a JSON conjunct no longer blocks pruning on another column") {
    assertReads("SELECT n FROM persist.docs WHERE n < 3 AND get_json_object(js, '$.kind') IS NOT NULL", kept = 1,
      expected = Seq(0L, 1L, 2L))
  }
}
