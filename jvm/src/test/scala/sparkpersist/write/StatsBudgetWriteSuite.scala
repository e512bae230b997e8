package sparkpersist.write

import org.apache.spark.sql.functions.{col, concat, lit, repeat, timestamp_millis, when}
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.api.PythonApi
import sparkpersist.scan.ScanReports
import sparkpersist.shard.PartMeta
import sparkpersist.stats.{MemberPieces, StatsBudget}
import sparkpersist.{PersistConf, PersistSparkSession}

/**
 * The stats budget on the write path: the same four parts written to a shard under a 350-byte
 * budget and to one without a budget. The long `note` column is trimmed, the kept `country`
 * and the time-like `event_ts` are not, and every query answers the same on both shards.
 */
class StatsBudgetWriteSuite extends PersistSparkSession {

  private val Start = 1767225600000L // 2026-01-01T00:00:00Z
  private val Hour = 3600000L

  /** Part d: 50 rows, notes of 150 times letter d then the id, countries AR/US, one hour each. */
  private def part(d: Int) = spark.range(50).select(
    (col("id") + d * 100L).as("id"),
    timestamp_millis(lit(Start + d * Hour) + col("id") * 1000L).as("event_ts"),
    concat(repeat(lit(('a' + d).toChar.toString), 150), col("id").cast("string")).as("note"),
    when(col("id") % 2 === 0, "US").otherwise("AR").as("country")).coalesce(1)

  override def beforeAll(): Unit = {
    super.beforeAll()
    Seq("trimmed" -> "200", "full" -> "0").foreach { case (name, budget) =>
      sql(s"CREATE TABLE persist.$name (id BIGINT, event_ts TIMESTAMP, note STRING, country STRING)")
      withSQLConf(PersistConf.StatsBudgetBytes.key -> budget) {
        (0 until 4).foreach(d => ShardWriter.write(part(d), store.open(name), WriteOptions(keepStats = Seq("COUNTRY"))))
      }
    }
  }

  private def parts(name: String): Seq[PartMeta] = store.open(name).state.batches.flatMap(_.parts)

  test("the trimmed set is in the state; only note's bounds widened; every part within budget") {
    val shard = store.open("trimmed")
    val budget = new StatsBudget(shard.state.schema, Set.empty, 200)
    val (trimmed, full) = (parts("trimmed").map(_.stats.get), parts("full").map(_.stats.get))
    assert(trimmed.size === 4 && full.size === 4)
    trimmed.zip(full).foreach { case (t, f) =>
      assert(t.trimmed === Set(3))
      assert(f.trimmed === Set.empty[Int])
      assert(budget.encodedSize(t) <= 200 && budget.encodedSize(f) > 200)
      // Automatic membership filters (country's) are the first dropped, and not reported as trimming.
      assert(Seq(1, 2, 4).map(t.columns) === Seq(1, 2, 4).map(id => MemberPieces.removed(f.columns(id))))
      assert(MemberPieces.in(f.columns(4)))
      val (tn, fn) = (t.columns(3), f.columns(3))
      assert(tn.nullCount === 0 && fn.nullCount === 0)
      val (lower, upper) = (tn.lower.get.asInstanceOf[UTF8String], tn.upper.get.asInstanceOf[UTF8String])
      assert(fn.lower.get.asInstanceOf[UTF8String].startsWith(lower) && lower.numChars() < 64)
      assert(upper.binaryCompare(fn.upper.get.asInstanceOf[UTF8String]) > 0 && upper.numChars() < 64)
    }
    assert(sql("SELECT DISTINCT stats_trimmed FROM persist.trimmed.parts").collect().map(_.getSeq[String](0)) ===
      Array(Seq("note")))
  }

  test("queries answer the same on the trimmed shard, and prune no more") {
    Seq(
      "SELECT id FROM persist.%s WHERE note >= 'c'" -> 100,
      "SELECT id FROM persist.%s WHERE note LIKE 'bbb%%7'" -> 5,
      "SELECT id FROM persist.%s WHERE country = 'AR' AND event_ts >= TIMESTAMP '2026-01-01 03:00:00'" -> 25,
      "SELECT id FROM persist.%s WHERE id BETWEEN 120 AND 130" -> 11).foreach { case (query, count) =>
      def run(name: String) = {
        val rows = sql(query.format(name)).collect().map(_.getLong(0)).sorted.toSeq
        (rows, ScanReports.last(spark).map(_.metrics.partsKept).sum)
      }
      val ((trimmedRows, trimmedRead), (fullRows, fullRead)) = (run("trimmed"), run("full"))
      assert(trimmedRows.size === count, query)
      assert(trimmedRows === fullRows, query)
      assert(trimmedRead >= fullRead, query)
    }
    // Time-like and untouched columns prune exactly as before trimming.
    assert(sql("SELECT id FROM persist.trimmed WHERE event_ts >= TIMESTAMP '2026-01-01 03:00:00'").collect().length === 50)
    assert(ScanReports.last(spark).map(_.metrics.partsKept) === Seq(1))
  }

  test("keep_stats from Python (the facade): the kept column is trimmed last") {
    // Three long strings (~550 bytes of stats): shortening two of them fits 400 bytes; `note` is kept.
    val df = part(1).withColumn("url", col("note")).withColumn("agent", col("note"))
    withSQLConf(PersistConf.StatsBudgetBytes.key -> "400") {
      PythonApi.write(df, "py", null, null, null, null, null, java.util.List.of("note"))
      PythonApi.write(df, "py_unkept", null, null, null, null, null, null)
    }
    val ids = store.open("py").state.schema.columns.map(c => c.name -> c.id).toMap
    assert(parts("py").map(_.stats.get.trimmed) === Seq(Set(ids("url"), ids("agent"))))
    assert(parts("py_unkept").map(_.stats.get.trimmed) === Seq(Set(ids("note"), ids("url"), ids("agent"))))
  }

  test("keep_stats must name shard columns") {
    val e = intercept[IllegalArgumentException](
      ShardWriter.write(part(0), store.open("full"), WriteOptions(keepStats = Seq("country", "nope"))))
    assert(e.getMessage === "[PERSIST_INVALID_WRITE] Cannot write to shard 'full': keep_stats names 'nope', not column(s) of the shard " +
      "(shard columns: id, event_ts, note, country). Name shard columns. SQLSTATE: 42000")
  }
}
