package sparkpersist.compact

import java.nio.file.Files

import org.apache.spark.sql.{DataFrame, QueryTest}
import org.apache.spark.sql.functions.{col, lit, timestamp_millis}

import sparkpersist.{PersistConf, PersistSparkSession}
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Small sealed windows merged as they age ([[AgedSpans]]), end to end: a shard of many small days,
 * compacted explicitly and automatically, read against plain Spark over a Parquet copy of its rows.
 */
class AgedCompactionSuite extends QueryTest with PersistSparkSession {

  private val Day = 86400000L
  private val Hour = 3600000L
  private val PerDay = 20

  /** Day `d`'s events: `PerDay` of them, an hour apart from midnight, ingested (update time) at 21:00. */
  private def events(d: Int): DataFrame =
    spark.range(0, PerDay, 1, 1).select(timestamp_millis(lit(d * Day) + col("id") * Hour).as("event_ts"),
      (col("id") + d * 100L).as("n"), lit(d * Day + 21 * Hour).as("ingest"))

  private def create(name: String): Unit =
    sql(s"CREATE TABLE persist.$name (event_ts TIMESTAMP, n BIGINT) TBLPROPERTIES ('order_by' = 'event_ts')")

  /** Appends days `days`, one batch each, as `(event_ts, n, time, diff)` rows `extra` adds to. */
  private def appendDays(name: String, days: Range, extra: Int => Option[DataFrame] = _ => None): Unit =
    days.foreach { d =>
      val rows = events(d).withColumn("diff", lit(1L))
      ShardWriter.write(extra(d).fold(rows)(rows.unionByName), store.open(name),
        WriteOptions(timeCol = Some("ingest"), diffCol = Some("diff")))
    }

  /** The rows of `frame` as plain Spark reads them back from a Parquet copy, as view `name`. */
  private def oracle(frame: DataFrame, name: String): Unit = {
    val dir = Files.createTempDirectory("aged-oracle").resolve("rows").toString
    frame.write.parquet(dir)
    withSQLConf("spark.sql.parquet.filterPushdown" -> "false")(spark.read.parquet(dir).createOrReplaceTempView(name))
  }

  private def rowsOf(query: String): Seq[String] =
    withSQLConf("spark.sql.parquet.filterPushdown" -> "false")(sql(query).collect().map(_.toString).toSeq.sorted)

  /** Each batch's update times as (first day, last day) and its part count, oldest first. */
  private def layout(name: String): Seq[(Long, Long, Int)] =
    store.open(name).state.batches.map { b =>
      val (lo, hi) = CompactionPlanner.updateTimes(b)
      (lo / Day, hi / Day, b.partCount)
    }

  /** Days 0..40 compacted with fanIn 4: 4-day spans, then 16-day spans, the open ones apart. */
  private val Aged = Seq((0L, 15L, 1), (16L, 31L, 1), (32L, 35L, 1), (36L, 39L, 1), (40L, 40L, 1))

  private val Window = s"event_ts >= timestamp_millis(${33 * Day + 21 * Hour}L)" // 7 days before mz_now()
  private val OldDays = s"event_ts BETWEEN timestamp_millis(${3 * Day}L) AND timestamp_millis(${9 * Day}L)"

  test("41 small days compact into aged spans of exact time ranges; a 7-day window reads 3 parts, the same rows as plain Spark") {
    create("aged")
    appendDays("aged", 0 to 40)
    oracle((0 to 40).map(events).reduce(_ unionByName _).drop("ingest"), "aged_oracle")
    val result = Lifecycle.compact(spark, "aged", CompactOptions(fanIn = Some(4)))
    // Round 1: ten 4-day spans; round 2: [0, 16) and [16, 32). [32, 48) is not sealed.
    assert((result.rounds, result.groupsMerged, result.batchesBefore, result.batchesAfter, result.partsAfter) ===
      (2, 12, 41, 5, 5))
    assert(layout("aged") === Aged)
    assert(rowsOf("SELECT min_time, max_time, row_count FROM persist.aged.batches") === Seq(
      (0, 15), (16, 31), (32, 35), (36, 39), (40, 40)).map { case (a, b) =>
        s"[${a * Day + 21 * Hour},${b * Day + 21 * Hour},${(b - a + 1) * PerDay}]" }.sorted)
    assert(Lifecycle.compact(spark, "aged", CompactOptions(fanIn = Some(4))).rounds === 0)

    val queries = Seq("", s"WHERE $Window", s"WHERE $OldDays", "WHERE mz_now() <= event_ts + INTERVAL 7 DAYS")
    queries.foreach { where =>
      val expected = rowsOf(s"SELECT event_ts, n FROM aged_oracle ${where.replace("mz_now()", s"timestamp_millis(${40 * Day + 21 * Hour}L)")}")
      assert(expected.nonEmpty)
      assert(inEveryMode(s"SELECT event_ts, n FROM persist.aged $where")._1 === expected, where)
    }
    // The window's own 8 days are in 3 parts; the old days in the one span of [0, 16).
    Seq(Window -> 3L, OldDays -> 1L, "mz_now() <= event_ts + INTERVAL 7 DAYS" -> 3L).foreach { case (where, kept) =>
      val reports = inEveryMode(s"SELECT count(*), sum(n) FROM persist.aged WHERE $where")._2("on")
      assert(reports.map(r => (r.metrics.partsKept, r.metrics.partsTotal)) === Seq((kept, 5L)), where)
    }
  }

  test("automatic compaction after each write reaches the same aged spans") {
    create("auto")
    withSQLConf(PersistConf.AutoCompact.key -> "true", PersistConf.CompactFanIn.key -> "4") {
      appendDays("auto", 0 to 40)
    }
    assert(layout("auto") === Aged)
    assert(rowsOf("SELECT count(*), sum(n) FROM persist.auto") === Seq(s"[${41 * PerDay},${(0 to 40).map(d =>
      (0 until PerDay).map(i => d * 100L + i).sum).sum}]"))
    withSQLConf(PersistConf.CompactMergeAged.key -> "false") {
      create("daily")
      withSQLConf(PersistConf.AutoCompact.key -> "true", PersistConf.CompactFanIn.key -> "4")(appendDays("daily", 0 to 8))
      assert(layout("daily") === (0 to 8).map(d => (d.toLong, d.toLong, 1)))
    }
  }

  test("with retractions and a retention, the settled history consolidates, then ages with the spans above since") {
    create("settled")
    // Day 5's batch also retracts day 3's events n = 300..302.
    appendDays("settled", 0 to 19, d => if (d != 5) None else Some(events(3).where(col("n") < 303)
      .withColumn("ingest", lit(5 * Day + 21 * Hour)).withColumn("diff", lit(-1L))))
    oracle((0 to 19).map(events).reduce(_ unionByName _).where(col("n") < 300 || col("n") > 302).drop("ingest"),
      "settled_oracle")
    val result = Lifecycle.compact(spark, "settled", CompactOptions(fanIn = Some(4), retentionMs = Some(9 * Day)))
    assert(result.since === 10 * Day + 21 * Hour + 1)
    // Rounds 1 and 2: days 0..10, wholly below since, are the settled history (two tier groups of 4 days,
    // then one batch at since - 1, where day 3's events meet their retractions and cancel); [12, 16) merges
    // as an aged span in round 1. With no retraction left the shard has no settled history any more, so
    // the consolidated batch ages like any other: [8, 12) in round 3, [0, 16) in round 4. [16, 20) is open.
    assert(result.rounds === 4)
    assert(layout("settled") === Seq((10L, 15L, 1), (16L, 16L, 1), (17L, 17L, 1), (18L, 18L, 1), (19L, 19L, 1)))
    val settled = store.open("settled").state.batches.head
    assert((settled.rowCount, settled.hasRetractions) === (16L * PerDay - 3, false))
    assert(inEveryMode("SELECT event_ts, n FROM persist.settled")._1 === rowsOf("SELECT event_ts, n FROM settled_oracle"))
  }

  test("a complete batch written by 200 tasks is rewritten once into one run of one part, the same rows") {
    create("fragmented")
    val rows = spark.range(0, 2000, 1, 200).select(timestamp_millis(col("id") * Hour).as("event_ts"), col("id").as("n"),
      lit(1000L).as("ingest"))
    ShardWriter.write(rows, store.open("fragmented"), WriteOptions(timeCol = Some("ingest")))
    ShardWriter.write(events(1).drop("ingest").withColumn("ingest", lit(Day + 1)), store.open("fragmented"),
      WriteOptions(timeCol = Some("ingest")))
    oracle(rows.drop("ingest").unionByName(events(1).drop("ingest")), "fragmented_oracle")
    val written = store.open("fragmented").state.batches.head
    assert((written.runs.size, written.partCount) === (200, 200))
    val options = CompactOptions(fanIn = Some(2), targetBytes = Some(written.bytes))
    val result = Lifecycle.compact(spark, "fragmented", options)
    assert((result.rounds, result.groupsMerged, result.batchesAfter, result.partsAfter) === (1, 1, 2, 2))
    val rewritten = store.open("fragmented").state.batches.head
    assert((rewritten.runs.size, rewritten.partCount, rewritten.rowCount) === (1, 1, 2000L))
    assert(Lifecycle.compact(spark, "fragmented", options).rounds === 0)
    assert(inEveryMode("SELECT event_ts, n FROM persist.fragmented")._1 === rowsOf("SELECT event_ts, n FROM fragmented_oracle"))
  }
}
