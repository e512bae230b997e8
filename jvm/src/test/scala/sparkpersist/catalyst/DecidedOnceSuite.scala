package sparkpersist.catalyst

import org.apache.spark.sql.functions._

import sparkpersist.PersistSparkSession
import sparkpersist.plan.PartDecisions
import sparkpersist.scan.ScanReports
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Every part of a query's shard is decided once per query ([[PartDecisions.made]] counts each
 * decision where it is made): by the scan alone, by aggregates from statistics and the scan of the
 * parts they leave, and by the whole-part `DELETE` and the row-level `DELETE` it falls back to.
 * Each case is one that decided parts two or three times before the one [[sparkpersist.plan.ScanPlan]].
 */
class DecidedOnceSuite extends PersistSparkSession {

  private val Parts = 8

  /** A fresh shard `name` of [[Parts]] insert-only parts, part `p` holding ids `p * 100 until p * 100 + 10`. */
  private def shard(name: String): Unit = {
    sql(s"CREATE TABLE persist.$name (id BIGINT, v BIGINT)")
    val handle = store.open(name)
    (0 until Parts).foreach { p =>
      ShardWriter.write(spark.range(p * 100L, p * 100L + 10).select(col("id"), (col("id") % 7).as("v")).coalesce(1),
        handle, WriteOptions())
    }
    assert(handle.state.partCount === Parts)
  }

  /** The decisions `body` made, and what it returned. */
  private def decisions[T](body: => T): (Long, T) = {
    val before = PartDecisions.made
    val out = body
    (PartDecisions.made - before, out)
  }

  test("a filtered read decides each part once") {
    shard("reads")
    val (made, rows) = decisions(sql("SELECT id FROM persist.reads WHERE id >= 300 AND id < 305").collect())
    assert(rows.map(_.getLong(0)).sorted.toSeq === (300L until 305))
    assert(made === Parts)
    assert(ScanReports.last(spark).map(r => (r.metrics.partsKept, r.metrics.partsPruned)) === Seq((1L, Parts - 1L)))
  }

  test("aggregates from statistics and the scan of the parts they leave share one decision per part") {
    shard("aggs")
    // Parts 4-7 are proven true (answered), part 3 straddles 305 (read), parts 0-2 are ruled out.
    val (made, rows) = decisions(sql("SELECT count(*), max(id) FROM persist.aggs WHERE id >= 305").collect())
    assert(rows.map(_.toString).toSeq === Seq("[45,709]"))
    assert(made === Parts)
    assert(ScanReports.last(spark).map(r => (r.metrics.partsFromStats, r.metrics.partsKept)) === Seq((4L, 1L)))
  }

  test("a DELETE decides each part once, whole-part or row by row") {
    shard("dels")
    // Every part decided (ids 400-709 proven true, the rest ruled out): four parts negated whole.
    val (wholePart, _) = decisions(sql("DELETE FROM persist.dels WHERE id >= 400"))
    assert(wholePart === Parts)
    assert(store.open("dels").state.parts.count(_.negated) === 4)
    // Part 1 straddles 105: the statement reads rows, by the plan the whole-part check made. The
    // negated parts and the parts they negate are left out of it: four parts are decided.
    val (rowByRow, _) = decisions(sql("DELETE FROM persist.dels WHERE id >= 105 AND id < 300"))
    assert(rowByRow === Parts - 4)
    assert(sql("SELECT id FROM persist.dels").collect().map(_.getLong(0)).sorted.toSeq ===
      (0L until 10) ++ (100L until 105) ++ (300L until 310))
  }
}
