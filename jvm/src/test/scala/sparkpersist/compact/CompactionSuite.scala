package sparkpersist.compact

import java.io.File

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, QueryTest, Row}
import org.apache.spark.sql.functions.{col, lit, timestamp_millis}
import org.apache.spark.sql.types._

import sparkpersist.errors.PersistStateException
import sparkpersist.plan.InvalidAsOf
import sparkpersist.read.UnreadablePart
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{BatchMeta, BatchReplacement, ShardHandle, ShardState, StateListing, StateLog, VersionEntry}
import sparkpersist.shard.PartFormat
import sparkpersist.write.{PartFooters, ShardWriter, WriteOptions}
import sparkpersist.{KeyValueShards, PersistConf, PersistSparkSession}

/** Compaction end to end: what it merges, what it writes, and that reads do not change. */
class CompactionSuite extends QueryTest with PersistSparkSession with KeyValueShards {
  import testImplicits._

  private val Day = 86400000L
  private val Hour = 3600000L

  private def compact(name: String, options: CompactOptions = CompactOptions()): CompactionResult =
    Lifecycle.compact(spark, name, options.copy(
      fanIn = options.fanIn.orElse(Some(8)), targetBytes = options.targetBytes.orElse(Some(1L << 30)),
      windowMs = options.windowMs.orElse(Some(Day))))

  private def rows(query: String): Seq[String] = sql(query).collect().map(_.toString).toSeq.sorted

  private def updates(name: String): Seq[String] = rows(s"SELECT * FROM persist.$name.updates")

  private def asOf[T](t: Long)(body: => T): T = withSQLConf(PersistConf.AsOf.key -> t.toString)(body)

  /** The batch directories under the shard's parts/ directory. */
  private def batchDirs(shard: ShardHandle): Set[String] =
    Option(new File(new Path(shard.dir, "parts").toUri).listFiles()).toSeq.flatten.map(_.getName).toSet

  test("a sealed day's appends become one batch of one sorted run; updates and stats are exact") {
    create("sealed")
    (1 to 5).foreach(i => append("sealed", i * 1000L, (i % 3).toLong -> s"a$i", (10L - i) -> s"b$i", 4L -> s"c$i"))
    append("sealed", Day + 5, 1L -> "next day")
    val before = updates("sealed")
    val result = compact("sealed")
    assert((result.rounds, result.groupsMerged, result.groupsLost) === (1, 1, 0))
    assert((result.batchesBefore, result.batchesAfter, result.partsBefore, result.partsAfter) === (6, 2, 6, 2))
    assert((result.rowsRead, result.rowsWritten, result.since) === (15L, 15L, 0L))
    assert(updates("sealed") === before)

    val state = store.open("sealed").state
    val merged = state.batches.head
    assert((merged.lower, merged.upper, merged.appends, merged.runs.size, merged.partCount) === (0L, 5001L, 5L, 1, 1))
    assert(rows("SELECT batch_id, lower, upper, appends, runs, parts, row_count, min_time, max_time FROM persist.sealed.batches") ===
      Seq(s"[${merged.id},0,5001,5,1,1,15,1000,5000]", s"[${state.batches(1).id},5001,${Day + 6},1,1,1,1,${Day + 5},${Day + 5}]").sorted)

    // The part is sorted by the order key, then time.
    val part = merged.parts.next()
    val stored = spark.read.parquet(store.open("sealed").partPath(part).toString).collect().map(r => (r.getLong(0), r.getLong(2)))
    assert(stored.toSeq === stored.toSeq.sorted)
    // Its stats are exactly those of writing the same updates fresh, by the same collectors and budget.
    create("fresh")
    val fresh = ShardWriter.write(sql("SELECT k, v, time AS t, diff AS d FROM persist.sealed.updates WHERE time < 10000").coalesce(1),
      store.open("fresh"), WriteOptions(timeCol = Some("t"), diffCol = Some("d"))).parts.next()
    assert((part.rowCount, part.minTime, part.maxTime, part.hasRetractions) ===
      (fresh.rowCount, fresh.minTime, fresh.maxTime, fresh.hasRetractions))
    assert(part.stats.map(s => (s.rowCount, s.columns, s.trimmed)) === fresh.stats.map(s => (s.rowCount, s.columns, s.trimmed)))
    assert(part.stats.get.bytes === part.bytes)
  }

  test("temporal locality: a 7-day window reads fewer parts after compaction, the same rows, in every mode") {
    spark.sql("CREATE TABLE persist.events (event_ts TIMESTAMP, n BIGINT) TBLPROPERTIES ('order_by' = 'event_ts')")
    val shard = store.open("events")
    for (day <- 0 until 12; j <- 0 until 2) {
      // Append j of a day is ingested at the end of its 12 hours and holds the events of those hours.
      val ingest = day * Day + (j + 1) * 12 * Hour - 1
      val events = spark.range(0, 10, 1, 1).select(
        timestamp_millis(lit(ingest) - col("id") * 72 * 60000L).as("event_ts"), (col("id") + day * 100 + j * 10).as("n"),
        lit(ingest).as("ingest"))
      ShardWriter.write(events, shard, WriteOptions(timeCol = Some("ingest")))
    }
    val query = "SELECT count(*), sum(n) FROM persist.events WHERE mz_now() <= event_ts + INTERVAL 7 DAYS"
    val (before, beforeReports) = inEveryMode(query)
    val result = compact("events")
    assert((result.batchesBefore, result.batchesAfter) === (24, 5))
    val (after, afterReports) = inEveryMode(query)
    assert(after === before)
    // As of the end of day 11: before, the last append of day 4 and both of days 5..11; after,
    // the aged span of days 0..7 (sealed: merged into one part) and one part per day 8..11.
    assert(beforeReports("on").map(_.metrics.partsKept) === Seq(15L))
    assert(afterReports("on").map(_.metrics.partsKept) === Seq(5L))
    assert(afterReports("on").map(_.metrics.partsTotal) === Seq(5L))
  }

  test("retention moves since; history below it is consolidated at since and older reads are refused") {
    create("accounts", StructType(Seq(StructField("name", StringType))), Seq("name"))
    update("accounts", ("a", 100L, 1L), ("b", 100L, 1L))
    update("accounts", ("a", 200L, -1L), ("c", 200L, 1L))
    update("accounts", ("d", 300L, 1L), ("b", 300L, 1L))
    update("accounts", ("b", 400L, -1L), ("e", 400L, 1L))
    val snapshots = Seq(350L, 400L).map(t => t -> asOf(t)(rows("SELECT name FROM persist.accounts"))).toMap
    val result = compact("accounts", CompactOptions(retentionMs = Some(51L)))
    assert((result.sinceBefore, result.since, result.groupsMerged, result.batchesAfter) === (0L, 350L, 1, 2))
    // The three batches below since collapse at 300 = min(since, upper - 1): a's insert and
    // retraction cancel, b's two inserts sum.
    assert(updates("accounts") === Seq("[b,300,2]", "[b,400,-1]", "[c,300,1]", "[d,300,1]", "[e,400,1]"))
    assert(store.open("accounts").state.batches.map(b => (b.lower, b.upper, b.appends)) === Seq((0L, 301L, 3L), (301L, 401L, 1L)))
    snapshots.foreach { case (t, expected) => assert(asOf(t)(rows("SELECT name FROM persist.accounts")) === expected) }
    val refused = intercept[Exception](asOf(349L)(rows("SELECT name FROM persist.accounts")))
    assert(Iterator.iterate[Throwable](refused)(_.getCause).takeWhile(_ != null).exists {
      case e: InvalidAsOf => e.getMessage.startsWith(
        "[PERSIST_INVALID_AS_OF.TIME] Cannot read shard 'accounts' as of 349: history before since = 350 has been compacted")
      case _ => false
    }, refused)
    // Compacting again changes nothing: the settled batch is consolidated already.
    assert(compact("accounts", CompactOptions(retentionMs = Some(51L))).rounds === 0)
  }

  test("stamped appends stay stamped: below since their times collapse to one, so parts store no time or diff") {
    create("stamped")
    (1 to 4).foreach(i => ShardWriter.write(Seq(i.toLong -> s"v$i", (i + 10).toLong -> "w").toDF("k", "v").coalesce(1),
      store.open("stamped"), WriteOptions()))
    val before = store.open("stamped").state
    assert(before.parts.forall(p => p.minTime == p.maxTime))
    val snapshot = rows("SELECT * FROM persist.stamped")
    // Tier-robust target: batches within a factor 2 in size share a tier of fanIn 4.
    val sizes = before.batches.map(_.bytes)
    assert(sizes.max < 2 * sizes.min, sizes)
    val result = compact("stamped", CompactOptions(retentionMs = Some(0L), fanIn = Some(4), targetBytes = Some(32 * sizes.max),
      windowMs = Some(1000 * Day)))
    assert((result.since, result.batchesAfter, result.partsAfter) === (before.upper - 1, 1, 1))
    val part = store.open("stamped").state.parts.next()
    assert((part.minTime, part.maxTime, part.hasRetractions) === (before.upper - 1, before.upper - 1, false))
    val (fields, footer) = PartFooters.read(store.open("stamped").partPath(part).toString, spark.sessionState.newHadoopConf())
    assert(fields.map(_._1) === Seq("k", "v"))
    assert(footer(PartFormat.TimeKey) === (before.upper - 1).toString)
    assert(rows("SELECT * FROM persist.stamped") === snapshot)
  }

  /** The shard's state log, with `beforeCommit` run (once) just before a compaction commits. */
  private final class Interleaved(inner: StateLog, beforeCommit: () => Unit) extends StateLog {
    private var pending = true
    override def current(): ShardState = inner.current()
    override def compareAndAppend(expectedUpper: Long, batch: BatchMeta): ShardState = inner.compareAndAppend(expectedUpper, batch)
    override def compareAndAppend(expectedUpper: Long, batch: BatchMeta, writtenUnder: ShardSchema,
        alteredFrom: Option[ShardSchema]): ShardState =
      inner.compareAndAppend(expectedUpper, batch, writtenUnder, alteredFrom)
    override def appendOnto(writtenUnder: ShardSchema, alteredFrom: Option[ShardSchema])(
        onto: ShardState => BatchMeta): ShardState = inner.appendOnto(writtenUnder, alteredFrom)(onto)
    override def alterSchema(change: ShardSchema => ShardSchema): ShardState = inner.alterSchema(change)
    override def downgradeSince(newSince: Long): ShardState = inner.downgradeSince(newSince)
    override def replaceBatches(replacements: Seq[BatchReplacement]): (ShardState, Seq[BatchReplacement]) = {
      if (pending) {
        pending = false
        beforeCommit()
      }
      inner.replaceBatches(replacements)
    }
    override def listing(): StateListing = inner.listing()
    override def history(limit: Int): IndexedSeq[VersionEntry] = inner.history(limit)
    override def statesFrom(seqNo: Long): Iterator[ShardState] = inner.statesFrom(seqNo)
    override def truncateBefore(seqNo: Long): Seq[String] = inner.truncateBefore(seqNo)
  }

  private def interleaved(name: String)(beforeCommit: => Unit): ShardHandle = {
    val h = store.open(name)
    new ShardHandle(name, h.dir, new Interleaved(h.log, () => beforeCommit), h.fs)
  }

  private def compactWith(handle: ShardHandle): CompactionResult =
    Compactor.compact(spark, handle, CompactionSettings(fanIn = 8, targetBytes = 1L << 30, windowMs = Day, retentionMs = None))

  test("an append committed while a compaction runs is kept, exactly once") {
    create("busy")
    (1 to 3).foreach(i => append("busy", i * 10L, i.toLong -> s"day0-$i"))
    append("busy", Day + 1, 4L -> "day1")
    val result = compactWith(interleaved("busy")(append("busy", Day + 2, 5L -> "meanwhile")))
    assert((result.groupsMerged, result.groupsLost) === (1, 0))
    assert(store.open("busy").state.batches.map(_.appends) === Seq(3L, 1L, 1L))
    assert(rows("SELECT * FROM persist.busy") === Seq("[1,day0-1]", "[2,day0-2]", "[3,day0-3]", "[4,day1]", "[5,meanwhile]"))
  }

  test("drop_batch of a batch a compaction replaced while it ran drops nothing and says what to do") {
    create("dropping")
    (1 to 3).foreach(i => append("dropping", i * 10L, i.toLong -> s"v$i"))
    append("dropping", Day + 1, 4L -> "day1") // day 0 is sealed: compaction merges its three batches
    val before = store.open("dropping").state
    val doomed = before.batches.head.id
    val e = intercept[PersistStateException](BatchRemoval.drop(interleaved("dropping")(compact("dropping")), doomed))
    assert(e.getCondition === "PERSIST_BATCH_REPLACED")
    assert(e.getMessage === s"[PERSIST_BATCH_REPLACED] Shard 'dropping': batch '$doomed' was replaced meanwhile (by a " +
      "compaction); nothing was dropped. Find the batch holding the part again and drop it. SQLSTATE: 40001")
    val after = store.open("dropping").state
    assert(after.batches.map(_.appends) === Seq(3L, 1L))
    assert(rows("SELECT * FROM persist.dropping") === Seq("[1,v1]", "[2,v2]", "[3,v3]", "[4,day1]"))
  }

  test("a compaction that loses the race to another deletes its own parts and commits nothing") {
    create("race")
    (1 to 3).foreach(i => append("race", i * 10L, i.toLong -> s"v$i"))
    append("race", Day + 1, 4L -> "day1")
    val originals = batchDirs(store.open("race"))
    var rival: CompactionResult = null
    val result = compactWith(interleaved("race") { rival = compact("race") })
    assert((rival.groupsMerged, result.groupsMerged, result.groupsLost) === (1, 0, 1))
    val state = store.open("race").state
    assert(state.batches.map(_.appends) === Seq(3L, 1L))
    // Only the winner's new batch directory was added: the loser's is gone.
    assert(batchDirs(store.open("race")) === originals + state.batches.head.id)
    assert(rows("SELECT * FROM persist.race") === Seq("[1,v1]", "[2,v2]", "[3,v3]", "[4,day1]"))
  }

  test("a merge that fails deletes every part it wrote and commits nothing") {
    create("broken")
    for (day <- 0 until 3; i <- 1 to 2) append("broken", day * Day + i, (day * 10 + i).toLong -> "x")
    val shard = store.open("broken")
    val before = shard.state
    val originals = batchDirs(shard)
    // Day 1's group cannot be read; day 0's task may well finish and write its part first.
    val lost = before.batches(2).parts.next()
    new File(shard.partPath(lost).toUri).delete()
    // The task's UnreadablePart, a SparkThrowable, which Spark 4 reports itself rather than wrapped in a SparkException.
    val failure = intercept[Exception](compact("broken"))
    assert(Iterator.iterate[Throwable](failure)(_.getCause).takeWhile(_ != null).exists(_.isInstanceOf[UnreadablePart]),
      failure)
    assert(store.open("broken").state === before)
    assert(batchDirs(store.open("broken")) === originals)
  }

  test("SQL: CALL persist.system.compact and gc, named arguments, and the procedures listed") {
    create("proc")
    (1 to 3).foreach(i => append("proc", i * 10L, i.toLong -> s"v$i"))
    append("proc", Day + 1, 4L -> "day1")
    val out = sql("CALL persist.system.compact(shard => 'proc', window_ms => 86400000, fan_in => 8)")
    assert(out.schema.fieldNames.take(4).toSeq === Seq("shard", "since_before", "since", "rounds"))
    val row = out.collect().head
    assert((row.getAs[String]("shard"), row.getAs[Int]("batches_before"), row.getAs[Int]("batches_after")) === ("proc", 4, 2))
    assert(row.isNullAt(row.fieldIndex("gc_parts_deleted")))
    // Per window, what it did and why: the first day is sealed (a write the next day), the second open.
    assert(row.getSeq[Row](row.fieldIndex("windows")).map(_.toSeq) === Seq(
      Seq(0L, Day, "merged", "sealed: packed into batches of up to target_bytes", 3, 1),
      Seq(Day, 2 * Day, "none", "below the minimum size: fewer than 8 batches of one size tier", 1, 1)))
    val gc = sql("CALL persist.system.gc('proc', keep_versions => 1, grace_ms => 0)").collect().head
    assert((gc.getAs[Int]("parts_deleted"), gc.getAs[Int]("parts_kept")) === (3, 2))
    assert(sql("SHOW PROCEDURES IN persist.system").collect().map(_.getString(3)).toSeq.sorted === Seq("clustering", "compact", "drop_batch", "gc", "iceberg", "last_scans", "restore", "write"))
    val unknown = intercept[Exception](sql("CALL persist.system.vacuum('proc')").collect())
    assert(unknown.getMessage.contains("vacuum"), unknown)
  }

  test("automatic compaction after writes: on with one setting, bounded by its byte budget") {
    def fourAppends(name: String): Seq[Int] = {
      create(name)
      (1 to 3).map { i => append(name, i * 10L, i.toLong -> "day0"); store.open(name).state.batches.size } :+ {
        append(name, Day + 1, 4L -> "day1")
        store.open(name).state.batches.size
      }
    }
    val windowed = Seq(PersistConf.CompactWindowMs.key -> Day.toString, PersistConf.CompactTargetBytes.key -> (1L << 30).toString)
    assert(fourAppends("manual") === Seq(1, 2, 3, 4))
    withSQLConf(windowed :+ (PersistConf.AutoCompact.key -> "true"): _*) {
      // Day 0 is sealed by the write of day 1, which then packs it.
      assert(fourAppends("auto") === Seq(1, 2, 3, 2))
      withSQLConf(PersistConf.AutoCompactMaxBytes.key -> "1") {
        assert(fourAppends("budget") === Seq(1, 2, 3, 4))
      }
    }
    assert(rows("SELECT * FROM persist.auto") === rows("SELECT * FROM persist.manual"))
  }
}
