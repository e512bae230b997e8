package sparkpersist.shard

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.shard.ShardFixtures._

/** Compaction's state change: replacing adjacent batches by compare-and-set, and the log under GC. */
class ReplaceBatchesSuite extends AnyFunSuite {

  private def withShard[T](f: (ShardStore, File) => T): T =
    withTempDir { dir =>
      val store = new ShardStore(dir.toURI.toString, hadoopConf, rollupEvery = 100)
      store.create("s", eventSchema)
      f(store, new File(dir, "s/state"))
    }

  private def log(store: ShardStore): StateLog = store.open("s").log

  private def batch(id: String, lower: Long, upper: Long): BatchMeta = eventBatch(id, lower, upper, 1, new Random(lower))

  /** Appends batches b<from>..b<n-1> of 10 time units each. */
  private def appendAll(l: StateLog, n: Int, from: Int = 0): ShardState =
    (from until n).foldLeft(l.current())((_, i) => l.compareAndAppend(i * 10L, batch(s"b$i", i * 10L, i * 10L + 10)))

  private def merged(id: String, of: ShardState, ids: String*): BatchReplacement = {
    val replaced = of.batches.filter(b => ids.contains(b.id))
    BatchReplacement(replaced.map(_.id), batch(id, replaced.head.lower, replaced.last.upper).copy(appends = ids.size))
  }

  /** The body of a state file (its JSON, without the checksum frame). */
  private def text(file: File): String =
    new String(StateFrame.open(Files.readAllBytes(file.toPath)), StandardCharsets.UTF_8)

  test("adjacent batches are replaced in one version, which is rolled up at once and reads back") {
    withShard { (store, stateDir) =>
      val l = log(store)
      val before = appendAll(l, 4)
      val (after, applied) = l.replaceBatches(Seq(merged("m", before, "b1", "b2")))
      assert(applied.map(_.batch.id) === Seq("m"))
      assert(after.batches.map(b => (b.id, b.lower, b.upper, b.appends)) ===
        Seq(("b0", 0L, 10L, 1L), ("m", 10L, 30L, 2L), ("b3", 30L, 40L, 1L)))
      assert((after.seqNo, after.upper, after.since) === (5L, 40L, 0L))
      assert(text(new File(stateDir, FsStateLog.versionName(5))).startsWith("""{"formatVersion":3,"seqNo":5,"kind":"compact""""))
      assert(new File(stateDir, "rollup-00000000000000000005.json").exists())
      // Appends stay in the format older releases read, without the appends count.
      assert(text(new File(stateDir, FsStateLog.versionName(1))).startsWith("""{"formatVersion":2,"seqNo":1,"kind":"append""""))
      assert(!text(new File(stateDir, FsStateLog.versionName(1))).contains("appends"))
      assert(log(store).current() === after)
      new File(stateDir, "rollup-00000000000000000005.json").delete()
      assert(log(store).current() === after) // replayed from version 5's diff
    }
  }

  test("a batch appended while the compaction ran stays; the replacement still commits") {
    withShard { (store, _) =>
      val (compactor, writer) = (log(store), log(store))
      val seen = appendAll(compactor, 3)
      writer.compareAndAppend(30, batch("late", 30, 45))
      val (after, applied) = compactor.replaceBatches(Seq(merged("m", seen, "b0", "b1", "b2")))
      assert(applied.size === 1)
      assert(after.batches.map(_.id) === Seq("m", "late") && after.upper === 45L)
    }
  }

  test("a replacement whose batches another compaction replaced first is left out, nothing written") {
    withShard { (store, stateDir) =>
      val (a, b) = (log(store), log(store))
      val seen = appendAll(a, 4)
      b.current()
      val (won, _) = b.replaceBatches(Seq(merged("winner", seen, "b1", "b2")))
      val (after, applied) = a.replaceBatches(Seq(merged("loser", seen, "b0", "b1"), merged("other", seen, "b3")))
      assert(applied.map(_.batch.id) === Seq("other"))
      assert(after.batches.map(_.id) === Seq("b0", "winner", "other"))
      val (same, none) = a.replaceBatches(Seq(merged("again", seen, "b0", "b1")))
      assert(none.isEmpty && same.seqNo === after.seqNo && won.seqNo + 1 === after.seqNo)
      assert(!new File(stateDir, FsStateLog.versionName(after.seqNo + 1)).exists())
    }
  }

  test("an invalid replacement is refused by the state change itself") {
    withShard { (store, _) =>
      val s = appendAll(log(store), 3)
      val gap = BatchReplacement(Vector("b0", "b2"), batch("g", 0, 30))
      assert(gap.positionIn(s).isEmpty)
      val e = intercept[IllegalArgumentException](ReplaceBatches(Seq(gap)).applyTo(s))
      assert(e.getMessage.contains("which are no longer all there, adjacent and spanning [0, 30)"))
      val wrongBounds = BatchReplacement(Vector("b0", "b1"), batch("w", 0, 25))
      assert(wrongBounds.positionIn(s).isEmpty)
      val overlapping = Seq(merged("x", s, "b0", "b1"), merged("y", s, "b1", "b2"))
      assert(intercept[IllegalArgumentException](ReplaceBatches(overlapping).applyTo(s)).getMessage ===
        "Compacted batches of shard 's' overlap.")
    }
  }

  test("truncation keeps version 0 and the rollup; every later state still replays") {
    withShard { (store, stateDir) =>
      val l = log(store)
      val seen = appendAll(l, 4)
      val (compacted, _) = l.replaceBatches(Seq(merged("m", seen, "b0", "b1")))
      l.compareAndAppend(40, batch("b4", 40, 50))
      assert(l.listing().versions.map(_.seqNo) === (0L to 6L) && l.listing().rollups.map(_.seqNo) === Seq(5L))
      assert(l.statesFrom(3).map(_.seqNo).toSeq === Seq(3L, 4L, 5L, 6L))
      assert(intercept[IllegalArgumentException](l.truncateBefore(4)).getMessage.contains("not a rollup"))
      assert(l.truncateBefore(5) === (1 to 4).map(FsStateLog.versionName(_)))
      assert(stateDir.list().sorted.toSeq === Seq(FsStateLog.versionName(0), FsStateLog.versionName(5),
        FsStateLog.versionName(6), "rollup-00000000000000000005.json"))
      assert(l.statesFrom(5).map(_.batches.map(_.id)).toSeq === Seq(compacted.batches.map(_.id),
        compacted.batches.map(_.id) :+ "b4"))
      assert(store.exists("s") && log(store).current().batches.map(_.id) === Seq("m", "b2", "b3", "b4"))
    }
  }

  test("a log cached before a truncation reloads instead of committing over a deleted version") {
    withShard { (store, stateDir) =>
      val (stale, empty, active) = (log(store), log(store), log(store))
      empty.current()
      appendAll(stale, 2)
      val seen = appendAll(active, 4, from = 2)
      active.replaceBatches(Seq(merged("m", seen, "b0", "b1", "b2", "b3")))
      active.truncateBefore(5)
      // stale's cached version 2 is gone: it must not take version 2 for the newest and write 3.
      assert(stale.current().seqNo === 5L)
      assert(stale.compareAndAppend(40, batch("b4", 40, 50)).batches.map(_.id) === Seq("m", "b4"))
      // A log that only saw version 0 (never deleted) notices the rollup.
      assert(empty.current().batches.map(_.id) === Seq("m", "b4"))
      assert(!new File(stateDir, FsStateLog.versionName(3)).exists())
    }
  }
}
