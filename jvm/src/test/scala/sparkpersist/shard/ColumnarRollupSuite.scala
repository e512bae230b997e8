package sparkpersist.shard

import java.io.File
import java.nio.file.Files

import scala.util.Random

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import sparkpersist.interpret.{Analyzed, LocalSpark, MzNowSpec}
import sparkpersist.plan.{PartPruning, PushdownMode}
import sparkpersist.shard.ShardFixtures._
import sparkpersist.stats.{BinaryStatsCodec, EncodedColumns, EveryStatsShape, StatsGen}

/**
 * Columnar rollups ([[ColumnarRollup]]): exact round trips of every state and stats shape, JSON
 * rollups still open, damage names the file, lazily decoded stats decide as decoded ones, and
 * segment summaries rule out whole segments.
 */
class ColumnarRollupSuite extends AnyFunSuite with ScalaCheckPropertyChecks with LocalSpark {

  private val schema = StatsGen.schema

  private val part: Gen[PartMeta] = for {
    key <- Gen.identifier
    stats <- Gen.option(EveryStatsShape.parts)
    rows <- Gen.choose(1L, 1000000L)
    bytes <- Gen.choose(0L, Long.MaxValue)
    times <- Gen.zip(Gen.long, Gen.long)
    retractions <- Gen.oneOf(true, false)
    positions <- Gen.option(Gen.identifier.map(k => s"parts/$k/positions-00000-a0.bin"))
    rebasedFrom <- Gen.frequency(3 -> Gen.const(None), 1 -> Gen.long.map(Some(_)))
  } yield PartMeta(s"parts/$key.parquet", stats.map(_.rowCount).getOrElse(rows), bytes,
    times._1 min times._2, times._1 max times._2, retractions, stats, positions.filter(_ => retractions), rebasedFrom)

  /** Batches of 0 to 3 runs of 0 to 4 parts (runs and batches without parts included), with epochs, some clustered. */
  private val batch: Gen[BatchMeta] = for {
    id <- Gen.identifier
    bounds <- Gen.zip(Gen.long, Gen.long)
    runs <- Gen.choose(0, 3).flatMap(n => Gen.listOfN(n, Gen.choose(0, 4).flatMap(Gen.listOfN(_, part))))
    committed <- Gen.long
    appends <- Gen.choose(1L, 5L)
    epochs <- Gen.choose(0, 2).flatMap(n => Gen.listOfN(n, Gen.zip(Gen.uuid, Gen.choose(0L, Long.MaxValue))))
    clusteredBy <- Gen.choose(0, 3).flatMap(Gen.listOfN(_, Gen.choose(1, 40)))
    commit <- Gen.option(Gen.zip(Gen.oneOf("WRITE", "DELETE", "MERGE \"quoted\""), Gen.option(Gen.long),
      Gen.option(Gen.asciiPrintableStr), Gen.mapOf(Gen.zip(Gen.asciiPrintableStr, Gen.asciiPrintableStr)),
      Gen.mapOf(Gen.zip(Gen.alphaStr, Gen.long)), Gen.option(Gen.long)).map {
      case (op, read, meta, parameters, metrics, readVersion) => CommitInfo(op, read, meta, parameters, metrics, readVersion)
    })
  } yield BatchMeta(id, bounds._1 min bounds._2, bounds._1 max bounds._2, runs.map(ps => RunMeta(ps.toVector)).toVector,
    committed, appends, epochs.map { case (q, e) => StreamEpoch(q.toString, e) }.toVector, clusteredBy.toVector, commit)

  private val states: Gen[ShardState] = for {
    batches <- Gen.choose(0, 5).flatMap(Gen.listOfN(_, batch))
    since <- Gen.choose(0L, 1000L)
    seqNo <- Gen.choose(1L, Long.MaxValue)
    indexed <- Gen.listOfN(schema.columns.size, Gen.oneOf(true, false)) // the table properties' flags
    clustered <- Gen.listOfN(schema.columns.size, Gen.frequency(4 -> false, 1 -> true))
    properties <- Gen.mapOf(Gen.zip(Gen.identifier, Gen.asciiPrintableStr))
  } yield ShardState("events", "0d5c6a8e-0000-4000-8000-000000000001", ShardState.FormatVersion,
    schema.copy(columns = schema.columns.zip(indexed.zip(clustered)).map { case (c, (i, k)) => c.copy(indexed = i, clustered = k) },
      properties = properties),
    since, since + 1000, seqNo, batches.toVector)

  test("every state and stats shape round-trips exactly through a columnar rollup, and again from one") {
    forAll(states, Gen.choose(1, 6), minSuccessful(25)) { (state, segmentParts) =>
      val bytes = ColumnarRollup.encode(state, segmentParts)
      assert(ColumnarRollup.is(bytes))
      val read = StateCodec.decodeRollup("r", bytes, state.seqNo)
      assert(read === state)
      assert(read.parts.flatMap(_.stats).forall(_.columns.isInstanceOf[EncodedColumns]))
      // Stats read from a rollup are written again as they were read, not decoded.
      assert(StateCodec.decodeRollup("r", StateCodec.encodeRollup(read), state.seqNo) === state)
      // And through the JSON form, which state versions use.
      assert(StateCodec.decodeRollup("r", StateCodec.encodeJsonRollup(state), state.seqNo) === state)
    }
  }

  private def events(batches: Int, partsPerBatch: Int): ShardState =
    ShardState("s", "id", ShardState.FormatVersion, eventSchema, 0, batches * 1000L, batches.toLong,
      (0 until batches).map(b => eventBatch(s"b$b", b * 1000L, b * 1000L + 1000, partsPerBatch, new Random(b))).toVector)

  test("JSON rollups still open, by the codec and by the state log") {
    val state = events(3, 4)
    assert(!ColumnarRollup.is(StateCodec.encodeJsonRollup(state)))
    assert(StateCodec.decodeRollup("r", StateCodec.encodeJsonRollup(state), 3) === state)
    val indexed = state.copy(schema = state.schema.copy(columns = state.schema.columns.map(_.copy(indexed = true))))
    assert(StateCodec.decodeRollup("r", StateCodec.encodeJsonRollup(indexed), 3) === indexed)
    val clustered = state.copy(schema = state.schema.copy(columns = state.schema.columns.map(_.copy(clustered = true))),
      batches = state.batches.map(_.copy(clusteredBy = IndexedSeq(2, 1))))
    assert(StateCodec.decodeRollup("r", StateCodec.encodeJsonRollup(clustered), 3) === clustered)
    val positional = state.copy(batches = state.batches.map(b => b.copy(runs = b.runs.map(r =>
      RunMeta(r.parts.map(_.copy(hasRetractions = true, positions = Some(s"parts/${b.id}/positions-00000-a0.bin"))))))))
    assert(StateCodec.decodeRollup("r", StateCodec.encodeJsonRollup(positional), 3) === positional)
    assert(StateCodec.decodeRollup("r", ColumnarRollup.encode(positional, 2), 3) === positional)
    withRollupAt2 { (store, rollup, written) =>
      Files.write(rollup.toPath, StateFrame.seal(StateCodec.encodeJsonRollup(written)))
      assert(store.open("s").state === written)
    }
  }

  /** A shard whose newest rollup is at version 2 (a columnar one), and that state. */
  private def withRollupAt2[T](f: (ShardStore, File, ShardState) => T): T = withTempDir { dir =>
    val store = new ShardStore(dir.toURI.toString, hadoopConf, rollupEvery = 2)
    val log = store.create("s", eventSchema).log
    log.compareAndAppend(0, eventBatch("a", 0, 1000, 100, new Random(1)))
    val written = log.compareAndAppend(1000, eventBatch("b", 1000, 2000, 100, new Random(2)))
    val rollup = new File(dir, "s/state/rollup-00000000000000000002.json")
    assert(ColumnarRollup.is(StateFrame.open(Files.readAllBytes(rollup.toPath))))
    assert(store.open("s").state === written)
    // The local file system's checksum would fail the read before the codec sees the damage.
    new File(dir, "s/state/.rollup-00000000000000000002.json.crc").delete()
    f(store, rollup, written)
  }

  test("a damaged columnar rollup fails the open with CorruptState naming the file") {
    withRollupAt2 { (store, rollup, written) =>
      // While the versions before it are there, the damaged rollup is passed over (FsStateLog's
      // fallback); once they are collected, the open fails naming it.
      val original = Files.readAllBytes(rollup.toPath)
      val body = StateFrame.open(original)
      Files.write(rollup.toPath, StateFrame.seal(body.take(body.length / 2)))
      assert(store.open("s").state === written)
      Files.write(rollup.toPath, original) // GC truncates only to a readable rollup
      assert(store.open("s").log.truncateBefore(2).nonEmpty)
      def refused(damaged: Array[Byte]): Unit = {
        Files.write(rollup.toPath, damaged)
        val e = intercept[CorruptState](store.open("s").state)
        assert(e.file === new Path(rollup.toURI).toString)
        assert(e.getMessage.contains(rollup.getName))
      }
      // Resealed, so that the Parquet reader (not the frame's checksum) meets the damage.
      refused(StateFrame.seal(body.take(body.length / 2)))
      refused(StateFrame.seal(body.take(body.length - 1)))
      // A byte inside a page of part metadata (read at open): the page's checksum fails.
      val flipped = body.clone()
      flipped(16) = (flipped(16) ^ 0x01).toByte
      refused(StateFrame.seal(flipped))
      // A byte inside a page of stats: read when a filter needs that column, whose stats are then
      // absent (anything) for every part; the open succeeds and the other columns are exact.
      val inStats = body.clone()
      inStats(body.length / 3) = (inStats(body.length / 3) ^ 0x01).toByte
      Files.write(rollup.toPath, StateFrame.seal(inStats))
      val widened = store.open("s").state
      assert(widened.parts.map(_.copy(stats = None)).toVector === written.parts.map(_.copy(stats = None)).toVector)
      val columns = eventSchema.columns.map(_.id)
      val (lost, kept) = columns.partition(id => widened.parts.forall(_.stats.get.columns.get(id).isEmpty))
      assert(lost.size === 1)
      kept.foreach(id => assert(widened.parts.map(_.stats.get.columns.get(id)).toVector ===
        written.parts.map(_.stats.get.columns.get(id)).toVector))
      // Unsealed damage: the frame's checksum fails first.
      val framed = StateFrame.seal(body)
      refused(framed.take(framed.length - 3))
    }
  }

  private lazy val analyzed =
    new Analyzed(spark, eventSchema.columns.map(c => AttributeReference(c.name, c.dataType, c.nullable)()))

  private val filters = Seq(
    "id < 1000000",
    "id >= 50000000 AND id <= 90000000 OR score > 1.5",
    "amount > 900 AND day = DATE '2022-01-08' OR user_name < 'user_0100'",
    "CAST(user_name AS INT) > 3 AND id < 1000000",
    "user_name IS NULL AND id > 1",
    "event_ts > TIMESTAMP '2023-11-14 22:13:20'")

  test("lazily decoded stats and segment summaries decide exactly the parts decoded stats do") {
    val state = events(12, 50)
    val read = StateCodec.decodeRollup("r", ColumnarRollup.encode(state, segmentParts = 64), state.seqNo)
    filters.foreach { sql =>
      val condition = analyzed(sql, ansi = true)
      def decide(s: ShardState) = {
        val parts = s.parts.toIndexedSeq
        val decided = PartPruning.select(condition, eventSchema, 1000L, PushdownMode.On).decideAmong(parts, 0)
        parts.indices.map(decided(_).admits).toVector
      }
      val eager = decide(state)
      assert(decide(read) === eager, sql)
      if (sql.startsWith("id <")) assert(eager.count(identity) === 50, sql)
    }
  }

  test("opening a columnar rollup reads no stats; a filter loads the columns it references, once for all parts") {
    val state = events(12, 50)
    val read = StateCodec.decodeRollup("r", ColumnarRollup.encode(state, segmentParts = 64), state.seqNo)
    def encoded(p: PartMeta) = p.stats.get.columns.asInstanceOf[EncodedColumns]
    assert(encoded(read.parts.next()).loadedColumns === 0)
    val decision = PartPruning.decide(analyzed("score > 1.5 AND user_name IS NOT NULL", ansi = true), eventSchema,
      MzNowSpec.at(0L))
    val kept = read.parts.count(p => p.stats.forall(decision.admits))
    assert(kept === state.parts.count(p => p.stats.forall(decision.admits)))
    assert(encoded(read.parts.next()).loadedColumns === 2)
  }

  /** Batches of 0 to 40 parts, so that a rollup of segments of 16 parts has full and partial ones. */
  private val appended: Gen[Seq[BatchMeta]] = Gen.choose(0, 6).flatMap(n => Gen.listOfN(n, Gen.choose(0, 40)))
    .map(_.zipWithIndex.map { case (parts, b) => eventBatch(s"n$b", 1000000L + b, 1000001L + b, parts, new Random(b)) })

  test("segment summaries carried forward from a rollup equal the ones summarized again") {
    def segments(bytes: Array[Byte]) = {
      val reader = new sparkpersist.codec.ParquetBytes.Reader(bytes)
      try reader.metadata("sparkpersist.segments") finally reader.close()
    }
    forAll(Gen.choose(1, 8), Gen.choose(0, 40), appended, Gen.choose(0, 3), minSuccessful(20)) {
      (batches, parts, more, dropped) =>
        val state = events(batches, parts)
        val read = StateCodec.decodeRollup("r", ColumnarRollup.encode(state, segmentParts = 16), state.seqNo)
        // Appended batches (new parts after the segments written) or batches replaced at the front (parts moved).
        def next(s: ShardState) = s.copy(batches = s.batches.drop(dropped) ++ more)
        val carried = ColumnarRollup.encode(next(read), segmentParts = 16)
        assert(segments(carried) === segments(ColumnarRollup.encode(next(state), segmentParts = 16)))
        if (dropped == 0) {
          // Full segments written before are carried forward: no part of them is decoded to summarize it again.
          val full = state.partCount / 16 * 16
          assert(read.parts.take(full).forall(_.stats.get.columns.asInstanceOf[EncodedColumns].decodedColumns == 0))
        }
    }
  }

  test("a scan's metrics and EXPLAIN count the segments its filter skipped on their summaries") {
    withTempDir { dir =>
      val store = new ShardStore(dir.toURI.toString, hadoopConf, rollupEvery = 2)
      val log = store.create("s", eventSchema).log
      log.compareAndAppend(0, eventBatch("a", 0, 1000, 700, new Random(1)))
      log.compareAndAppend(1000, eventBatch("b", 1000, 2000, 700, new Random(2)))
      val shard = store.open("s")
      val state = shard.state
      // 1400 parts in segments of 1024 and 376: batch b's parts 324 on (the second segment) hold ids from
      // 1e6 + 324 * 1e4 on, so the filter rules out that segment whole; parts i < 400 of a and i < 300 of b are kept.
      val condition = analyzed("id < 4000000", ansi = true)
      val session = spark.asInstanceOf[org.apache.spark.sql.classic.SparkSession]
      val scan = new sparkpersist.scan.PersistScan(session, sparkpersist.plan.ScanPlan(session, shard, state,
        sparkpersist.plan.TableView.Snapshot, Some(2000L), PartPruning.select(condition, eventSchema, 2000L, PushdownMode.On)),
        eventSchema.dataSchema)
      assert(scan.metrics.partsKept === 700)
      assert(scan.metrics.segmentsSkipped === 1)
      assert(scan.metrics.taskMetrics.map(m => m.name() -> m.value()).toMap
        .apply(sparkpersist.scan.ScanMetrics.SegmentsSkipped) === 1)
      // Every kept part holds ids below 4e6 only: the filter is proven true on each.
      assert(scan.metrics.partsProvenTrue === 700)
      assert(scan.description().contains(
        "parts: 700/1400 bytes: 734003200/1468006400 segments skipped: 1 proven true: 700 pushdown=on"))
    }
  }

  test("a segment whose summary rules it out is skipped whole, without deciding its parts") {
    val state = events(12, 50)
    val read = StateCodec.decodeRollup("r", ColumnarRollup.encode(state, segmentParts = 64), state.seqNo)
    val decision = PartPruning.decide(analyzed("id < 1000000", ansi = true), eventSchema, MzNowSpec.at(0L))
    // Ids ascend across parts: batch b's part i holds b * 1e6 + i * 1e4 up to 9999 more, so batch 0's 50 parts
    // hold the ids below 1e6.
    decision.prepare(read.parts.toIndexedSeq) // as a scan decides: segments first
    assert(read.parts.count(p => p.stats.forall(decision.admits)) === 50)
    // 600 parts in 10 segments of 64 (and one of 24): the first is kept, the other nine ruled out.
    assert(decision.segments === (10, 9))
    // The kept segment's parts are decided on their own bounds, read straight from their bytes
    // (VectorFilter): no part's stats are decoded, and only that segment's bytes of `id` are loaded.
    assert(read.parts.forall(_.stats.get.columns.asInstanceOf[EncodedColumns].decodedColumns === 0))
    assert(loaded(read) === Map("id" -> 64))
  }

  /** Each column's parts whose stats bytes were loaded so far, by column name. */
  private def loaded(s: ShardState): Map[String, Int] = s.parts.next().stats.get.columns.asInstanceOf[EncodedColumns]
    .loadedParts.map { case (id, n) => eventSchema.columnById(id).get.name -> n }.filter(_._2 > 0)

  /** Decides the parts of `s` as a scan does: its segments first, then its parts. */
  private def scanDecision(s: ShardState, sql: String): Vector[Boolean] = {
    val decision = PartPruning.decide(analyzed(sql, ansi = true), eventSchema, MzNowSpec.at(0L))
    val parts = s.parts.toVector
    decision.prepare(parts)
    parts.map(p => p.stats.forall(decision.admits))
  }

  test("a decision that decides segments first loads the stats bytes of its kept segments only") {
    val state = events(12, 50)
    val read = StateCodec.decodeRollup("r", ColumnarRollup.encode(state, segmentParts = 64), state.seqNo)
    // 600 parts in segments of 64: `id < 1000000` keeps the first segment only (batch 0's 50 parts).
    assert(scanDecision(read, "id < 1000000").count(identity) === 50)
    assert(loaded(read) === Map("id" -> 64))
    // Another filter on the same state loads its own kept segments of its columns; the decisions stay exact.
    val sql = "score > 1.9 AND id > 5000000"
    val eager = state.parts.toVector.map(p => p.stats.forall(PartPruning.decide(analyzed(sql, ansi = true),
      eventSchema, MzNowSpec.at(0L)).admits))
    assert(scanDecision(read, sql) === eager)
    // Segments 3 to 9 hold parts of batches 5 on (ids above 5e6; every segment has some score above 1.9):
    // their `id` bytes are loaded beside segment 0's, for 6 segments of 64 parts and the last one of 24.
    assert(loaded(read)("id") === 64 + 6 * 64 + 24)
    // A part of a segment no decision wanted loads its column whole (as a rollup write reads them all).
    val again = ColumnarRollup.encode(read, segmentParts = 64)
    assert(loaded(read)("id") === 600)
    assert(StateCodec.decodeRollup("r2", again, state.seqNo) === state)
  }

  test("decisions over segments loaded one by one equal decoded ones, for rollups of any page size") {
    val state = events(12, 50)
    forAll(Gen.oneOf(16, 64, 100, 1024), Gen.oneOf(0, 7, 20000), Gen.oneOf(filters), minSuccessful(12)) {
      (segmentParts, pageRows, sql) =>
        // pageRows 20000: the pages of rollups written before pages were cut at segments.
        val read = StateCodec.decodeRollup("r", ColumnarRollup.encode(state, segmentParts, pageRows), state.seqNo)
        val eager = state.parts.toVector.map(p => p.stats.forall(PartPruning.decide(analyzed(sql, ansi = true),
          eventSchema, MzNowSpec.at(0L)).admits))
        assert(scanDecision(read, sql) === eager, s"$sql, segments of $segmentParts, pages of $pageRows")
    }
  }

  test("a damaged stats page read for a few segments leaves only their parts' stats of that column absent") {
    val state = events(12, 50)
    val body = ColumnarRollup.encode(state, segmentParts = 64)
    // Flip one byte of the last segment's `id` stats bytes (inside its page), found by its bytes' position.
    val entry = BinaryStatsCodec(eventSchema).columnEntries(state.parts.toSeq.last.stats.get).toMap.apply(1)
    val at = body.indexOfSlice(entry)
    assert(at > 0)
    val damaged = body.clone()
    damaged(at + entry.length / 2) = (damaged(at + entry.length / 2) ^ 0x01).toByte
    val read = StateCodec.decodeRollup("r", damaged, state.seqNo)
    // `id > 11400000` keeps the last segment (parts 576 to 599) on its summary: its page fails its checksum, so
    // its 24 parts have no `id` stats and are kept; the other segments were ruled out whole, as undamaged.
    val kept = scanDecision(read, "id > 11400000")
    assert(kept.take(576).count(identity) === 0)
    assert(kept.drop(576).forall(identity))
    assert(read.parts.drop(576).forall(_.stats.get.columns.get(1).isEmpty))
  }
}
