package sparkpersist.catalyst

import org.apache.spark.sql.functions.{array, col, lit, map, struct, when}
import org.apache.spark.sql.internal.SQLConf

import sparkpersist.scan.ScanReports
import sparkpersist.stats.{ArrayStats, ColumnStats}
import sparkpersist.write.{ShardWriter, WriteOptions}
import sparkpersist.{PersistConf, PersistSparkSession}

/**
 * Part pruning on struct fields, array elements, map values and sizes, end to end: a shard of
 * five parts written by the writer (nested stats collected in the write tasks, stored in the
 * shard's state), queried with pushdown on and off. Results must be identical and the parts read
 * are asserted exactly.
 */
class NestedPruningSuite extends PersistSparkSession {

  private val Parts = 5

  /** Tags of part d's arrays: sizes 1, 2, 2, 3 and 5. */
  private val tagsOf = IndexedSeq(Seq("a"), Seq("a", "b"), Seq("x", "y"), Seq("b", "c", "d"), Seq("c", "d", "e", "f", "g"))

  /**
   * Part d: 10 rows, id = 10 d + i; attrs.level = 3 d + i % 3 (attrs null for i = 9), tags as
   * [[tagsOf]], props = {'k': d}.
   */
  override def beforeAll(): Unit = {
    super.beforeAll()
    sql("CREATE TABLE persist.nested (id BIGINT, attrs STRUCT<level: INT, name: STRING>, " +
      "tags ARRAY<STRING>, props MAP<STRING, INT>)")
    val shard = store.open("nested")
    (0 until Parts).foreach { d =>
      val rows = spark.range(10).select(
        (col("id") + d * 10L).as("id"),
        when(col("id") === 9, lit(null)).otherwise(struct(
          (col("id") % 3 + 3 * d).cast("int").as("level"), lit(s"n$d").as("name"))).as("attrs"),
        array(tagsOf(d).map(lit): _*).as("tags"),
        map(lit("k"), lit(d)).as("props"),
        lit(1000L + d).as("ingest_ms")).coalesce(1)
      ShardWriter.write(rows, shard, WriteOptions(timeCol = Some("ingest_ms")))
    }
    assert(shard.state.partCount === Parts)
  }

  /** Runs `query` with pushdown on and off: same rows; returns them and the parts kept when on. */
  private def run(query: String): (Seq[String], Long) = {
    val runs = Seq("on", "off").map { mode =>
      withSQLConf(PersistConf.PushdownMode.key -> mode) {
        val rows = sql(query).collect().map(_.toString).toSeq.sorted
        (rows, ScanReports.last(spark).map(_.metrics))
      }
    }
    assert(runs(0)._1 === runs(1)._1, query)
    assert(runs(1)._2.map(_.partsKept) === Seq(Parts), query)
    assert(runs(0)._2.map(m => m.partsKept + m.partsPruned) === Seq(Parts), query)
    (runs(0)._1, runs(0)._2.head.partsKept)
  }

  private def assertReads(query: String, kept: Int, rows: Int): Unit = {
    val (result, partsKept) = run(query)
    assert(result.size === rows, query)
    assert(partsKept === kept, query)
  }

  test("the shard's state holds the nested stats the write tasks collected") {
    val part = store.open("nested").state.parts.toSeq(4)
    val tagsId = store.open("nested").state.schema.column("tags").get.id
    val tags = part.stats.get.columns(tagsId)
    // Bounds and counts of the elements; their automatic membership filter (sparkpersist.stats.AutoIndex) aside.
    assert(sparkpersist.stats.MemberPieces.removed(tags).nested === Some(ArrayStats(5, 5, 50,
      Some(ColumnStats(0, Some(org.apache.spark.unsafe.types.UTF8String.fromString("c")),
        Some(org.apache.spark.unsafe.types.UTF8String.fromString("g")))))))
    assert(sparkpersist.stats.MemberPieces.in(tags))
  }

  test("struct fields prune") {
    assertReads("SELECT id FROM persist.nested WHERE attrs.level > 9", kept = 2, rows = 15)
    assertReads("SELECT id FROM persist.nested WHERE attrs.level = 4 OR attrs.name = 'n0'", kept = 2, rows = 12)
    assertReads("SELECT id FROM persist.nested WHERE attrs.level < 0", kept = 0, rows = 0)
  }

  test("array elements, sizes and map values prune") {
    assertReads("SELECT id FROM persist.nested WHERE element_at(tags, 1) = 'x'", kept = 1, rows = 10)
    assertReads("SELECT id FROM persist.nested WHERE tags[0] = 'x'", kept = 1, rows = 10)
    assertReads("SELECT id FROM persist.nested WHERE size(tags) > 3", kept = 1, rows = 10)
    assertReads("SELECT id FROM persist.nested WHERE array_contains(tags, 'y')", kept = 1, rows = 10)
    assertReads("SELECT id FROM persist.nested WHERE try_element_at(tags, 3) = 'd'", kept = 2, rows = 10)
    assertReads("SELECT id FROM persist.nested WHERE props['k'] = 3", kept = 1, rows = 10)
    assertReads("SELECT id FROM persist.nested WHERE element_at(props, 'z') IS NOT NULL", kept = 0, rows = 0)
  }

  test("an index past the end of some arrays keeps their parts: the query raises as unpruned") {
    val query = "SELECT id FROM persist.nested WHERE element_at(tags, 3) = 'a'"
    Seq("on", "off").foreach { mode =>
      withSQLConf(PersistConf.PushdownMode.key -> mode, SQLConf.ANSI_ENABLED.key -> "true") {
        val e = intercept[Exception](sql(query).collect())
        assert(e.getMessage.contains("INVALID_ARRAY_INDEX_IN_ELEMENT_AT"), mode)
        // Parts 0-2 (arrays of 1 or 2 tags) may raise; parts 3 and 4 hold no 'a'.
        assert(ScanReports.last(spark).map(_.metrics.partsKept) === Seq(if (mode == "on") 3 else Parts))
      }
    }
    withSQLConf(SQLConf.ANSI_ENABLED.key -> "false") {
      assertReads(query, kept = 0, rows = 0)
    }
  }
}
