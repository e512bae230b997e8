package sparkpersist.compact

import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.shard.{BatchMeta, PartMeta, RunMeta, ShardFixtures, ShardState}

/**
 * The planner's aged spans alone ([[AgedSpans]]), over batches of exact sizes and times, compacted
 * round by round to the end: which small sealed windows merge into which longer spans.
 */
class AgedSpansSuite extends AnyFunSuite {
  private val Day = 86400000L
  private val settings = CompactionSettings(fanIn = 4, targetBytes = 1L << 20, windowMs = Day, retentionMs = None)

  /** A batch of `runs` runs of one part each, `bytes` in all, whose updates lie at times [minTime, maxTime]. */
  private def batch(id: String, lower: Long, minTime: Long, maxTime: Long, bytes: Long, runs: Int = 1,
      retractions: Boolean = false): BatchMeta =
    BatchMeta(id, lower, maxTime + 1, (0 until runs).map(r => RunMeta(Vector(
      PartMeta(s"parts/$id/p$r.parquet", 10, bytes / runs, minTime, maxTime, retractions, None)))), 0L)

  /** One batch per listed day, its updates at noon, chained [lower, upper). */
  private def days(days: Seq[Int], bytes: Long = 1000L): IndexedSeq[BatchMeta] =
    days.foldLeft(Vector.empty[BatchMeta]) { (out, d) =>
      out :+ batch(s"d$d", out.lastOption.map(_.upper).getOrElse(0L), d * Day + Day / 2, d * Day + Day / 2, bytes)
    }

  private def state(batches: IndexedSeq[BatchMeta], since: Long = 0L): ShardState =
    ShardState("s", "id", ShardState.FormatVersion, ShardFixtures.eventSchema, since,
      batches.lastOption.map(_.upper).getOrElse(0L), batches.size.toLong, batches)

  /** What rounds of plan and merge leave, each merged batch one part over its group's times and bytes. */
  private def compacted(start: ShardState, c: CompactionSettings = settings): (Seq[Seq[Seq[String]]], ShardState) = {
    var s = start
    val rounds = Iterator.continually {
      val groups = CompactionPlanner.plan(s, c)
      val replaced = groups.map(g => g.batches.head.id -> g).toMap
      val gone = groups.flatMap(_.batches.tail.map(_.id)).toSet
      s = s.copy(batches = s.batches.filterNot(b => gone(b.id)).map { b =>
        replaced.get(b.id).fold(b) { g =>
          val times = g.batches.map(CompactionPlanner.updateTimes)
          batch(g.batches.map(_.id).mkString("+"), g.lower, times.map(_._1).min, times.map(_._2).max, g.bytes)
            .copy(upper = g.upper)
        }
      })
      groups.map(_.batches.map(_.id))
    }.takeWhile(_.nonEmpty).toList
    (rounds, s)
  }

  /** Each batch's first and last day of update time. */
  private def spans(s: ShardState): Seq[(Long, Long)] =
    s.batches.map(CompactionPlanner.updateTimes).map { case (lo, hi) => (lo / Day, hi / Day) }

  test("sealed days merge into spans of 4 days, then 16, as the upper passes their ends; the open ones wait") {
    // Days 0..40, one small batch each; day 40 is open.
    val (rounds, after) = compacted(state(days(0 to 40)))
    assert(rounds.map(_.size) === Seq(10, 2))
    assert(rounds.head.head === Seq("d0", "d1", "d2", "d3"))
    assert(rounds(1) === Seq((0 until 4).map(i => (4 * i until 4 * i + 4).map(d => s"d$d").mkString("+")),
      (4 until 8).map(i => (4 * i until 4 * i + 4).map(d => s"d$d").mkString("+"))))
    // [0, 16), [16, 32) merged; [32, 48) is not sealed, so its finished 4-day spans stay apart.
    assert(spans(after) === Seq((0L, 15L), (16L, 31L), (32L, 35L), (36L, 39L), (40L, 40L)))
    assert(after.batches.map(b => (b.lower, b.upper)).sliding(2).forall { case Seq(a, b) => a._2 == b._1 })
    // Incremental: compacting again plans nothing; the next days merge without touching the older spans.
    assert(compacted(after)._1 === Nil)
    val later = after.copy(batches = after.batches ++ days(0 to 48).drop(41))
    val (next, grown) = compacted(later.copy(upper = later.batches.last.upper))
    assert(next.flatten.flatten.forall(id => !id.startsWith("d0+")))
    assert(spans(grown) === Seq((0L, 15L), (16L, 31L), (32L, 47L), (48L, 48L)))
  }

  test("a 7-day window meets at most the one span its start falls in besides its own days") {
    val (_, after) = compacted(state(days(0 to 200)))
    (8 to 200).foreach { end =>
      val start = end - 7
      val read = spans(after).count { case (lo, hi) => hi >= start && lo <= end }
      assert(read <= 8 + 2, s"days $start..$end read $read batches of ${spans(after)}")
    }
    assert(spans(after).take(3) === Seq((0L, 63L), (64L, 127L), (128L, 191L)))
  }

  test("10,000 days of 16 KB from 2026-01-01 at the defaults: the maximal sealed aligned spans within targetBytes, 21 batches") {
    val defaults = CompactionSettings(fanIn = 8, targetBytes = 128L << 20, windowMs = Day, retentionMs = None)
    val first = 20454 // 2026-01-01
    val count = 10000
    val last = first + count - 1
    val bytes = 16600L
    // The oracle, declared rather than planned: a span is one batch if it is sealed and holds at most the
    // target, else its children are laid out; a day is a batch of its own.
    def expected(level: Int, index: Long): Seq[(Long, Long)] = {
      val length = math.pow(8, level).toLong
      val (lo, hi) = (math.max(index * length, first.toLong), math.min((index + 1) * length - 1, last.toLong))
      if (lo > hi) Nil
      else if (level == 0 || ((index + 1) * length <= last && (hi - lo + 1) * bytes <= defaults.targetBytes)) Seq(lo -> hi)
      else (0 until 8).flatMap(c => expected(level - 1, index * 8 + c))
    }
    val (_, after) = compacted(state(days(first to last, bytes)), defaults)
    val oracle = (0L to last / math.pow(8, 6).toLong).flatMap(expected(6, _))
    assert(spans(after) === oracle)
    assert(oracle.size === 21)
    assert(oracle.map { case (lo, hi) => hi - lo + 1 }.max === 4096)
  }

  test("a span whose batches hold more than targetBytes stays apart, so does one with a day left in two batches") {
    val large = days(0 to 8, bytes = settings.targetBytes / 3)
    assert(compacted(state(large))._1 === Nil)
    // Day 1 holds two batches 1 byte above the target together: it cannot pack, so [0, 4) waits.
    val two = days(Seq(0)) ++ Seq(batch("d1a", 0, Day + 1, Day + 1, settings.targetBytes / 2 + 1),
      batch("d1b", 0, Day + 2, Day + 2, settings.targetBytes / 2)) ++ days(2 to 4)
    val chained = two.foldLeft(Vector.empty[BatchMeta])((out, b) => out :+ b.copy(lower = out.lastOption.map(_.upper).getOrElse(0L)))
    assert(compacted(state(chained))._1 === Nil)
  }

  test("with retractions, settled batches stay in the settled history; aged spans above since still merge") {
    val batches = days(0 to 8).map(b => if (b.id == "d0") b.copy(runs = b.runs.map(r => r.copy(parts = r.parts.map(_.copy(
      hasRetractions = true))))) else b)
    val since = 2 * Day
    val groups = CompactionPlanner.plan(state(batches, since), settings).map(_.batches.map(_.id))
    // d0 and d1 (wholly below since) are the settled history; [4, 8) merges; [0, 4) holds settled batches.
    assert(groups === Seq(Seq("d0", "d1"), Seq("d4", "d5", "d6", "d7")))
  }

  test("in a clustered shard a merged span is laid out as one window, and again alone when the columns change") {
    val schema = ShardFixtures.eventSchema.copy(columns = ShardFixtures.eventSchema.columns.map(c =>
      if (c.name == "user_name") c.copy(clustered = true) else c))
    val ids = schema.clusteredIds
    val clustered = state(days(0 to 8).map(_.copy(clusteredBy = ids))).copy(schema = schema)
    assert(CompactionPlanner.plan(clustered, settings).map(g => (g.batches.map(_.id), g.clusterBy)) ===
      Seq((Seq("d0", "d1", "d2", "d3"), ids), (Seq("d4", "d5", "d6", "d7"), ids)))
    // A span of days 0..3 laid out along other columns, then days 4 and 5: the span is laid out again, alone.
    val span = batch("span", 0, Day / 2, 3 * Day + Day / 2, 4000L).copy(clusteredBy = IndexedSeq(ids.head + 1))
    val after = days(0 to 5).drop(4).map(_.copy(clusteredBy = ids))
    val changed = state(span +: after).copy(schema = schema)
    assert(CompactionPlanner.plan(changed, settings).map(g => (g.batches.map(_.id), g.clusterBy)) === Seq((Seq("span"), ids)))
    assert(CompactionPlanner.plan(changed.copy(batches = (span.copy(clusteredBy = ids) +: after)), settings) === Nil)
  }

  test("mergeAged=false keeps every batch within one window") {
    assert(CompactionPlanner.plan(state(days(0 to 40)), settings.copy(mergeAged = false)) === Nil)
  }

  test("a complete batch written as many small runs is rewritten alone once; one run, or large parts, never") {
    val target = settings.targetBytes
    val fragmented = batch("many", 0, 10, 10, target, runs = 64)
    val next = batch("next", fragmented.upper, Day + 1, Day + 1, 1000L)
    assert(CompactionPlanner.plan(state(IndexedSeq(fragmented, next)), settings).map(_.batches.map(_.id)) === Seq(Seq("many")))
    val oneRun = batch("one", 0, 10, 10, target)
    val largeParts = batch("large", 0, 10, 10, target, runs = 4)
    Seq(oneRun, largeParts).foreach { b =>
      assert(CompactionPlanner.plan(state(IndexedSeq(b, next.copy(lower = b.upper))), settings) === Nil)
    }
  }
}
