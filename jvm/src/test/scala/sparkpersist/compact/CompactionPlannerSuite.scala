package sparkpersist.compact

import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.shard.{BatchMeta, PartMeta, RunMeta, ShardFixtures, ShardState}

/** The planner alone, over batches of exact sizes and times: which adjacent batches merge. */
class CompactionPlannerSuite extends AnyFunSuite {
  private val Day = 86400000L
  private val settings = CompactionSettings(fanIn = 4, targetBytes = 1L << 20, windowMs = Day, retentionMs = None)

  /** A batch of one part of `bytes` bytes whose updates lie at times [minTime, maxTime]. */
  private def batch(id: String, lower: Long, minTime: Long, maxTime: Long, bytes: Long,
      retractions: Boolean = false): BatchMeta =
    BatchMeta(id, lower, maxTime + 1, Vector(RunMeta(Vector(
      PartMeta(s"parts/$id/p.parquet", 10, bytes, minTime, maxTime, retractions, None)))), 0L)

  /** Batches at the given times (one time each), chained [lower, upper). */
  private def chain(specs: (String, Long, Long)*): IndexedSeq[BatchMeta] = {
    var lower = 0L
    specs.map { case (id, time, bytes) =>
      val b = batch(id, lower, time, time, bytes)
      lower = b.upper
      b
    }.toIndexedSeq
  }

  private def state(batches: IndexedSeq[BatchMeta], since: Long = 0L): ShardState =
    ShardState("s", "id", ShardState.FormatVersion, ShardFixtures.eventSchema, since,
      batches.lastOption.map(_.upper).getOrElse(0L), batches.size.toLong, batches)

  private def planIds(s: ShardState, c: CompactionSettings = settings): Seq[Seq[String]] =
    CompactionPlanner.plan(s, c).map(_.batches.map(_.id))

  private val clusteredSchema = ShardFixtures.eventSchema.copy(
    columns = ShardFixtures.eventSchema.columns.map(c => c.copy(clustered = c.name == "user_name")))
  private val userName = clusteredSchema.clusteredIds

  private def clustered(s: ShardState): ShardState = s.copy(schema = clusteredSchema)

  test("a clustered shard's open window: size-tiered without a request, laid out as it is now with cluster => true") {
    val open = clustered(state(chain((1 to 4).map(i => (s"b$i", 1000L + i, 1000L)): _*)))
    val Seq(tiered) = CompactionPlanner.windows(open, settings)
    assert(tiered.groups.map(g => (g.batches.map(_.id), g.clusterBy)) === Seq((Seq("b1", "b2", "b3", "b4"), Seq())))
    assert(tiered.reason === "open: laid out along (user_name) once it seals, or now with cluster => true")
    assert((tiered.window.start, tiered.window.end(open)) === (Some(0L), Day))
    val onRequest = settings.copy(cluster = settings.cluster.copy(reclusterBefore = Some(1L)))
    val Seq(laidOut) = CompactionPlanner.windows(open, onRequest)
    assert(laidOut.groups.map(g => (g.batches.map(_.id), g.clusterBy)) === Seq((Seq("b1", "b2", "b3", "b4"), userName)))
    assert(laidOut.reason === "open: laid out along (user_name) on request (cluster => true); " +
      "batches appended later are laid out when it seals")
    // A batch committed after the request (while the compaction runs) waits until the window seals.
    val appended = open.copy(batches = open.batches.map(b => if (b.id == "b4") b.copy(committedAtMs = 1L) else b))
    assert(CompactionPlanner.plan(appended, onRequest).map(_.batches.map(_.id)) === Seq(Seq("b1", "b2", "b3")))
  }

  test("a batch clustered on request is not merged back by tiers while its window is open; the later ones are " +
    "laid out when it seals") {
    val fanIn2 = settings.copy(fanIn = 2)
    val c = batch("c", 0L, 1000L, 1000L, 1000L).copy(clusteredBy = userName, committedAtMs = 5L)
    val later = Seq(("s1", 1001L), ("s2", 1002L)).scanLeft(c) { case (prev, (id, t)) => batch(id, prev.upper, t, t, 1000L) }
    val open = clustered(state(later.toIndexedSeq))
    // Without clustering columns, c and s1 (one tier) would merge first.
    assert(planIds(open.copy(schema = ShardFixtures.eventSchema), fanIn2) === Seq(Seq("c", "s1")))
    assert(planIds(open, fanIn2) === Seq(Seq("s1", "s2")))
    val sealedDay = clustered(state(later.toIndexedSeq :+ batch("next", later.last.upper, Day, Day, 1000L)))
    val Seq(day0, day1) = CompactionPlanner.windows(sealedDay, fanIn2)
    assert(day0.groups.map(g => (g.batches.map(_.id), g.clusterBy)) === Seq((Seq("s1", "s2"), userName)))
    assert(day0.reason === "sealed: laid out along (user_name)")
    assert((day1.groups, day1.reason) === (Nil, "open: laid out along (user_name) once it seals, or now with cluster => true"))
    // Once the later batches are laid out too, the sealed window is left alone.
    val done = sealedDay.copy(batches = sealedDay.batches.map(b => if (b.id.startsWith("s")) b.copy(clusteredBy = userName) else b))
    assert(CompactionPlanner.windows(done, fanIn2).head.reason === "already clustered by (user_name)")
  }

  test("tiers: a batch's tier is the largest k with bytes * fanIn^k < targetBytes; at the target it is complete") {
    val target = settings.targetBytes
    assert(CompactionPlanner.tier(target - 1, settings) === 0)
    assert(CompactionPlanner.tier(target / 4, settings) === 0)
    assert(CompactionPlanner.tier(target / 4 - 1, settings) === 1)
    assert(CompactionPlanner.tier(1, settings) === 9) // 4^9 < 2^20 <= 4^10
    assert(CompactionPlanner.tier(0, settings) === 9)
  }

  test("fanIn adjacent batches of one tier in one window merge, oldest first; fewer wait for more") {
    val batches = chain((1 to 10).map(i => (s"b$i", 1000L + i, 1000L)): _*)
    assert(planIds(state(batches)) === Seq(Seq("b1", "b2", "b3", "b4"), Seq("b5", "b6", "b7", "b8")))
  }

  test("an old large batch is never rewritten with the newest small ones; complete batches never") {
    val batches = chain(("big", 10L, 200000L), ("s1", 11L, 1000L), ("s2", 12L, 1000L), ("s3", 13L, 1000L),
      ("s4", 14L, 1000L), ("done", 15L, settings.targetBytes), ("s5", 16L, 1000L))
    assert(planIds(state(batches)) === Seq(Seq("s1", "s2", "s3", "s4")))
  }

  test("batches of different windows never merge; a batch straddling a window boundary stays alone") {
    val day0 = chain((1 to 3).map(i => (s"d0_$i", i.toLong, 1000L)): _*)
    val straddling = batch("x", day0.last.upper, Day - 5, Day + 5, 1000L)
    val day1 = (1 to 4).map(i => batch(s"d1_$i", 0, Day + 10 + i, Day + 10 + i, 1000L))
    val chained = (day0 :+ straddling) ++ day1.scanLeft(straddling)((prev, b) => b.copy(lower = prev.upper)).tail
    // Day 0 is sealed once the upper passes its end: its three batches are packed into one.
    assert(planIds(state(chained)) === Seq(Seq("d0_1", "d0_2", "d0_3"), Seq("d1_1", "d1_2", "d1_3", "d1_4")))
  }

  test("a sealed window's leftovers are packed up to targetBytes; an open window's wait") {
    val batches = chain(("a", 1L, 600000L), ("b", 2L, 300000L), ("c", 3L, 300000L), ("d", 4L, 1000L))
    assert(planIds(state(batches)) === Nil) // day 0 still open: no tier has 4 batches
    val sealedDay = batches :+ batch("next", batches.last.upper, Day + 1, Day + 1, 1000L)
    assert(planIds(state(sealedDay)) === Seq(Seq("a", "b"), Seq("c", "d")))
  }

  test("with retractions, batches wholly below since are one settled window, consolidated even alone") {
    val batches = IndexedSeq(
      batch("r1", 0, 0, 50, 1000L, retractions = true),
      batch("r2", 51, Day * 3, Day * 3, 1000L),
      batch("r3", Day * 3 + 1, Day * 9, Day * 9 + 7, 1000L, retractions = true))
    val since = Day * 9 + 100
    val groups = CompactionPlanner.plan(state(batches, since), settings)
    assert(groups.map(_.batches.map(_.id)) === Seq(Seq("r1", "r2", "r3")))
    assert(groups.head.advanceTo === batches.last.upper - 1 && groups.head.consolidates)
    // One settled batch with retractions not yet advanced is rewritten alone, once.
    val alone = IndexedSeq(batch("r", 0, 0, 50, 1000L, retractions = true))
    assert(planIds(state(alone, since = 60)) === Seq(Seq("r")))
    val consolidated = IndexedSeq(batch("r", 0, 50, 50, 1000L, retractions = true))
    assert(planIds(state(consolidated, since = 60)) === Nil)
    def reasons(s: ShardState) = CompactionPlanner.windows(s, settings).map(w => (w.window.start, w.window.end(s), w.reason))
    assert(reasons(state(batches, since)) === Seq((None, since, "settled below since: packed up to target_bytes and consolidated")))
    assert(reasons(state(consolidated, since = 60)) === Seq((None, 60L, "nothing to do: its batches are packed")))
  }

  test("a group is stamped when it has no retractions and one time once advanced to since") {
    val batches = chain(("a", 10L, 1000L), ("b", 20L, 1000L), ("c", 30L, 1000L), ("d", 40L, 1000L))
    val open = CompactionPlanner.plan(state(batches, since = 0), settings)
    assert(open.map(g => (g.advanceTo, g.stampTime, g.consolidates)) === Seq((0L, None, false)))
    val settled = CompactionPlanner.plan(state(batches, since = 41), settings)
    assert(settled.map(g => (g.advanceTo, g.stampTime)) === Seq((40L, Some(40L))))
  }

  test("automatic compaction takes the smallest groups first, within its byte budget") {
    val small = chain((1 to 4).map(i => (s"s$i", i.toLong, 1000L)): _*)
    val tier1 = (1 to 4).map(i => batch(s"m$i", 0, 10L + i, 10L + i, 100000L))
    val all = (small ++ tier1).scanLeft(Option.empty[BatchMeta])((prev, b) =>
      Some(b.copy(lower = prev.map(_.upper).getOrElse(0L)))).flatten.toIndexedSeq
    val planned = CompactionPlanner.plan(state(all), settings)
    assert(planned.map(_.batches.map(_.id)) === Seq(small.map(_.id), tier1.map(_.id)))
    assert(Compactor.within(planned, 4000L).map(_.batches.map(_.id)) === Seq(small.map(_.id)))
    assert(Compactor.within(planned, 3999L) === Nil)
    assert(Compactor.within(planned, 404000L) === planned)
  }
}
