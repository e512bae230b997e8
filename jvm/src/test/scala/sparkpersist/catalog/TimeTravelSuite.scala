package sparkpersist.catalog

import java.time.Instant

import org.apache.spark.sql.{QueryTest, Row}

import sparkpersist.PersistSparkSession
import sparkpersist.api.PythonApi

/**
 * Time travel per table (issue 30): `TIMESTAMP AS OF` and `VERSION AS OF` in SQL and the DataFrame
 * reader's options, each relation at its own time, with the clear as-of errors outside
 * `[since, upper)`, never "table not found".
 */
class TimeTravelSuite extends QueryTest with PersistSparkSession {

  /** `ms` as a timestamp literal that parses the same in any session time zone. */
  private def at(ms: Long): String = Instant.ofEpochMilli(ms).toString

  private def write(sqlText: String, shard: String): Long =
    PythonApi.write(sql(sqlText), shard, null, null, null, null, null, null).get("upper").asInstanceOf[Long]

  test("two shards at two different as-ofs in one query; a third at its latest; mz_now() the latest read") {
    val a1 = write("SELECT 1 AS k, 'a1' AS v", "tt_a")
    write("SELECT 2 AS k, 'a2' AS v", "tt_a")
    val b1 = write("SELECT 1 AS k, 'b1' AS w", "tt_b")
    write("SELECT 2 AS k, 'b2' AS w", "tt_b")
    write("SELECT 1 AS k", "tt_c")
    write("SELECT 2 AS k", "tt_c")
    val ts = at(b1 - 1)
    val q = s"SELECT a.k, a.v, b.w FROM persist.tt_a VERSION AS OF 1 a JOIN persist.tt_b TIMESTAMP AS OF '$ts' b " +
      "ON a.k = b.k JOIN persist.tt_c c ON c.k = a.k"
    val (rows, reports) = inEveryMode(q)
    assert(rows === Seq("[1,a1,b1]"))
    val asOfs = reports("on").map(r => r.shard -> r.asOf).toMap
    assert(asOfs === Map("tt_a" -> Some(a1 - 1), "tt_b" -> Some(b1 - 1),
      "tt_c" -> Some(store.open("tt_c").state.upper - 1)))
    checkAnswer(sql("SELECT count(*) FROM persist.tt_a"), Row(2L))
    checkAnswer(sql("SELECT count(*) FROM persist.tt_a VERSION AS OF 2"), Row(2L))
    // The same shard twice, at two times.
    checkAnswer(sql("SELECT (SELECT count(*) FROM persist.tt_a VERSION AS OF 1), (SELECT count(*) FROM persist.tt_a)"),
      Row(1L, 2L))
  }

  test("the DataFrame reader's versionAsOf and timestampAsOf options") {
    val first = write("SELECT 1 AS k", "tt_opts")
    write("SELECT 2 AS k", "tt_opts")
    checkAnswer(spark.read.option("versionAsOf", "1").table("persist.tt_opts"), Row(1))
    checkAnswer(spark.read.option("timestampAsOf", at(first - 1)).table("persist.tt_opts"), Row(1))
    checkAnswer(spark.read.table("persist.tt_opts"), Seq(Row(1), Row(2)))
  }

  test("times outside [since, upper) and unknown versions give clear errors, never 'table not found'") {
    write("SELECT 1 AS k", "tt_bad")
    val upper = store.open("tt_bad").state.upper
    def failure(q: String): String = intercept[Exception](sql(q).collect()).getMessage
    val future = failure(s"SELECT * FROM persist.tt_bad TIMESTAMP AS OF '${at(upper + 60000)}'")
    assert(future.contains(s"Cannot read shard 'tt_bad' as of ${upper + 60000}: only times before upper = $upper"), future)
    val tooNew = failure("SELECT * FROM persist.tt_bad VERSION AS OF 7")
    assert(tooNew.contains("Cannot read shard 'tt_bad' as of version 7: its newest version is 1."), tooNew)
    val empty = failure("SELECT * FROM persist.tt_bad VERSION AS OF 0")
    assert(empty.contains("no time was complete yet at that version"), empty)
    val word = failure("SELECT * FROM persist.tt_bad VERSION AS OF 'latest'")
    assert(word.contains("a version is a state version number (0 to 1)"), word)
    val parts = failure("SELECT * FROM persist.tt_bad.parts VERSION AS OF 1")
    assert(parts.contains("cannot be read VERSION AS OF"), parts)
    sql("CALL persist.system.compact('tt_bad', retention_ms => 0)").collect()
    val since = store.open("tt_bad").state.since
    assert(since > 0 && since < upper)
    val compacted = failure(s"SELECT * FROM persist.tt_bad TIMESTAMP AS OF '${at(since - 1)}'")
    assert(compacted.contains(s"history before since = $since has been compacted"), compacted)
  }
}
