package sparkpersist.stream

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.functions.{col, expr, lit, timestamp_millis}

import sparkpersist.PersistConf
import sparkpersist.interpret.MzNow
import sparkpersist.scan.ScanReports
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Part pruning of streaming reads: `mz_now()` ranges over `[asOf, +inf)`, so a part is skipped
 * only if the filter is false (or null), error-free, now and at every later time. A shard of ten
 * daily parts (one batch a day, times at the end of each day) and one part of events scheduled a
 * month ahead.
 */
class StreamPruningSuite extends StreamTesting {

  private val Start = 1767225600000L // 2026-01-01T00:00:00Z
  private val Day = 86400000L
  private val Hour = 3600000L
  private val Days = 10

  /** Day d: 20 events at d + i hours, n = 100 d + i, at time end of day d. Then 5 events on day 40. */
  override def beforeAll(): Unit = {
    super.beforeAll()
    sql("CREATE TABLE persist.events (event_ts TIMESTAMP, n BIGINT)")
    (0 until Days).foreach(d => write(d * 100L, 20, Start + d * Day, Start + (d + 1) * Day - 1))
    write(4000L, 5, Start + 40 * Day, Start + Days * Day) // scheduled: dated a month ahead
    assert(store.open("events").state.partCount === Days + 1)
  }

  /** Writes `count` events `n = firstN + i` at `firstTs + i hours` as one batch at `time`. */
  private def write(firstN: Long, count: Int, firstTs: Long, time: Long): Unit =
    ShardWriter.write(spark.range(count).select(
      timestamp_millis(lit(firstTs) + col("id") * Hour).as("event_ts"), (col("id") + firstN).as("n"),
      lit(time).as("t")).coalesce(1), store.open("events"), WriteOptions(timeCol = Some("t")))

  private val AsOf = Start + Days * Day // the scheduled batch's time: upper - 1

  /** The first micro-batch of a stream of `persist.events` filtered by `condition`, in `mode`. */
  private def snapshot(condition: String, mode: String): MicroBatch =
    withSQLConf(PersistConf.PushdownMode.key -> mode, PersistConf.SoftFailOnViolation.key -> "true") {
      val batches = runAvailableNow(spark.readStream.table("persist.events").where(condition).select("n"),
        newCheckpoint())
      assert(batches.size === 1)
      batches.head
    }

  private def batchRows(condition: String): Seq[String] =
    sql(s"SELECT n FROM persist.events WHERE $condition").collect().map(_.toString).toSeq.sorted

  test("mz_now() <= event_ts + INTERVAL 2 DAYS prunes the old parts of the snapshot, soundly in soft mode") {
    val condition = "mz_now() <= event_ts + INTERVAL 2 DAYS"
    val on = snapshot(condition, "on")
    // Days 8 and 9 (as of the end of day 9, day 8's first event is exactly 2 days old), and the
    // scheduled events: the same rows as a batch read.
    assert(on.rows.size === 20 + 20 + 5)
    assert(on.rows === batchRows(condition))
    assert(on.scans.map(s => (s.asOf, s.metrics.partsTotal, s.metrics.partsKept, s.metrics.partsPruned)) ===
      Seq((Some(AsOf), 11L, 3L, 8L)))
    val soft = snapshot(condition, "soft")
    assert(soft.rows === on.rows)
    assert(soft.scans.map(s => (s.metrics.partsKept, s.metrics.partsPruned, s.softViolations.map(_.sum))) ===
      Seq((11L, 8L, Some(0L))))
    val off = snapshot(condition, "off")
    assert(off.rows === on.rows)
    assert(off.scans.map(_.metrics.partsKept) === Seq(11L))
  }

  test("mz_now() >= event_ts prunes nothing: the scheduled events pass later, though a batch read skips them") {
    val condition = "mz_now() >= event_ts"
    val stream = snapshot(condition, "on")
    assert(stream.rows.size === Days * 20)
    assert(stream.rows === batchRows(condition))
    assert(stream.scans.map(s => (s.metrics.partsKept, s.metrics.partsPruned)) === Seq((11L, 0L)))
    // A batch read fixes mz_now() to its as-of: the scheduled part cannot pass then.
    assert(ScanReports.last(spark).map(s => (s.metrics.partsKept, s.metrics.partsPruned)) === Seq((10L, 1L)))
    assert(snapshot(condition, "soft").scans.map(_.softViolations.map(_.sum)) === Seq(Some(0L)))
  }

  test("the filter reaches the stream through projections and aliases, deterministic conjuncts only") {
    val df = spark.readStream.table("persist.events").select(col("event_ts").as("ts"), col("n"))
      .where("mz_now() <= ts + INTERVAL 2 DAYS AND rand() < 2")
    val pushed = pushedConditions(df.queryExecution.analyzed)
    assert(pushed.size === 1)
    val condition = pushed.head.getOrElse(fail("no condition reached the stream"))
    assert(condition.references.toSeq.map(_.name) === Seq("event_ts"))
    assert(condition.deterministic && condition.exists(_.isInstanceOf[MzNow]))
    val batches = runAvailableNow(df.select("n"), newCheckpoint())
    assert(batches.map(b => (b.rows.size, b.scans.map(_.metrics.partsKept))) === Seq((45, Seq(3L))))

    // A filter above a union is not the stream's: it reads every part.
    val union = spark.readStream.table("persist.events").union(spark.readStream.table("persist.events"))
      .where("mz_now() <= event_ts + INTERVAL 2 DAYS")
    assert(pushedConditions(union.queryExecution.analyzed) === Seq(None, None))
  }

  /** The condition each persist streaming relation of `plan` was asked to read. */
  private def pushedConditions(plan: LogicalPlan): Seq[Option[Expression]] = plan.collect {
    case PersistStreamingRelation(_, table) => table.request.condition
  }

  test("later micro-batches prune their own parts; rows are filtered with mz_now() = the micro-batch's upper - 1") {
    val checkpoint = newCheckpoint()
    val stream = spark.readStream.table("persist.events")
      .where("mz_now() <= event_ts + INTERVAL 2 DAYS")
      .select(col("n"), expr("unix_millis(mz_now())").as("now"))
    val first = runAvailableNow(stream, checkpoint)
    assert(first.map(_.rows.size) === Seq(45))
    assert(first.head.rows.forall(_.endsWith(s",$AsOf]")))

    // Late events (a week old) and fresh ones, in two batches: one micro-batch reads both batches
    // but only the fresh part; the late one cannot pass now or later.
    val late = AsOf + 10
    write(9000L, 3, Start + 3 * Day, late)
    write(9100L, 3, Start + Days * Day + Hour, late + 10)
    val next = runAvailableNow(stream, checkpoint)
    assert(next.map(_.rows) === Seq(Seq("[9100,%d]", "[9101,%d]", "[9102,%d]").map(_.format(late + 10))))
    assert(next.head.scans.map(s => (s.asOf, s.metrics.partsKept, s.metrics.partsPruned)) ===
      Seq((Some(late + 10), 1L, 1L)))
  }
}
