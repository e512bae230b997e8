package sparkpersist.compact

import java.io.File
import java.nio.file.Files

import scala.util.Random

import org.apache.commons.io.FileUtils
import org.apache.hadoop.fs.{FilterFileSystem, LocatedFileStatus, Path, RemoteIterator}
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.shard.{BatchMeta, BatchReplacement, PartMeta, RunMeta, ShardFixtures, ShardHandle, ShardStore}
import sparkpersist.shard.ShardFixtures.{hadoopConf, withTempDir}

/**
 * Garbage collection over real state logs and part files (empty files at the parts' keys): it
 * deletes exactly the files no live version refers to, past the grace, and the state versions
 * no longer needed. `now` is passed in, so file ages are exact.
 */
class GarbageCollectionSuite extends AnyFunSuite {
  private val Hour = 3600000L

  private def versionName(seqNo: Long): String = f"$seqNo%020d.json"

  /** A shard with batches b0..b5 (one part each, on disk), then b0..b3 compacted into `m`. */
  private def withCompactedShard[T](f: (ShardHandle, File) => T): T = withTempDir { dir =>
    val shard = new ShardStore(dir.toURI.toString, hadoopConf, rollupEvery = 100).create("s", ShardFixtures.eventSchema)
    def onePart(id: String, lower: Long, upper: Long): BatchMeta = {
      val part = PartMeta(s"parts/$id/part-0.parquet", 10, 100, lower, upper - 1, hasRetractions = false, None)
      touch(new File(dir, s"s/${part.key}"))
      BatchMeta(id, lower, upper, Vector(RunMeta(Vector(part))), 0L)
    }
    (0 until 6).foreach(i => shard.log.compareAndAppend(i * 10L, onePart(s"b$i", i * 10L, i * 10L + 10)))
    shard.log.replaceBatches(Seq(BatchReplacement((0 until 4).map(i => s"b$i"), onePart("m", 0, 40).copy(appends = 4))))
    f(shard, new File(dir, "s"))
  }

  private def touch(file: File): Unit = {
    file.getParentFile.mkdirs()
    Files.write(file.toPath, Array[Byte](1, 2, 3))
  }

  private def files(shardDir: File, sub: String): Seq[String] = {
    val base = new File(shardDir, sub)
    if (!base.exists()) Nil
    else Files.walk(base.toPath).toArray.toSeq.map(_.asInstanceOf[java.nio.file.Path].toFile)
      .filter(_.isFile).map(f => base.toPath.relativize(f.toPath).toString).sorted
  }

  /** Far enough ahead that every file is older than any grace used here. */
  private val later = System.currentTimeMillis() + 10 * 24 * Hour

  test("parts of replaced batches go once no live version refers to them; versions before the rollup too") {
    withCompactedShard { (shard, dir) =>
      // Versions 0 (create), 1..6 (appends), 7 (compaction, rolled up).
      val kept = GarbageCollector.collect(shard, GcSettings(keepVersions = 3, graceMs = 0), later)
      assert((kept.oldestLiveVersion, kept.newestVersion, kept.partsDeleted, kept.stateFilesDeleted) === (5L, 7L, Nil, Nil))
      assert(files(dir, "parts").size === 7)

      val result = GarbageCollector.collect(shard, GcSettings(keepVersions = 1, graceMs = 0), later)
      assert(result.oldestLiveVersion === 7L)
      assert(result.partsDeleted === (0 until 4).map(i => s"parts/b$i/part-0.parquet"))
      assert((result.bytesDeleted, result.partsKept) === (12L, 3))
      assert(files(dir, "parts") === Seq("b4/part-0.parquet", "b5/part-0.parquet", "m/part-0.parquet"))
      assert(new File(dir, "parts").list().sorted.toSeq === Seq("b4", "b5", "m")) // emptied directories go too
      assert(result.stateFilesDeleted === (1 to 6).map(versionName(_)))
      assert(files(dir, "state") === Seq(versionName(0), versionName(7),
        "rollup-00000000000000000007.json"))
      val reopened = new ShardStore(dir.getParentFile.toURI.toString, hadoopConf).open("s").state
      assert(reopened === shard.state)
      assert(reopened.parts.forall(p => new File(dir, p.key).exists()))

      // A later collection keeping more versions than are left counts only those it can
      // replay (version 0 is kept, but versions 1..6 are gone): it deletes nothing.
      val again = GarbageCollector.collect(shard, GcSettings(keepVersions = 100, graceMs = 0), later)
      assert((again.oldestLiveVersion, again.partsDeleted, again.stateFilesDeleted) === (7L, Nil, Nil))
      assert(files(dir, "parts").size === 3)
    }
  }

  test("a version younger than the grace is live however many versions came after it") {
    withCompactedShard { (shard, dir) =>
      val versions = shard.log.listing().versions
      val now = versions.find(_.seqNo == 4).get.modifiedMs + 2 * Hour
      new File(dir, s"state/${versionName(4)}").setLastModified(now - Hour)
      (5 to 7).foreach(v => new File(dir, s"state/${versionName(v)}").setLastModified(now - Hour / 2))
      (0 to 3).foreach(v => new File(dir, s"state/${versionName(v)}").setLastModified(now - 3 * Hour))
      new File(dir, "parts").listFiles().foreach(_.listFiles().foreach(_.setLastModified(now - 3 * Hour)))
      val result = GarbageCollector.collect(shard, GcSettings(keepVersions = 1, graceMs = 90 * 60000L), now)
      // Version 4 (committed an hour ago) holds b0..b3: nothing of theirs may go; version 3 was the
      // newest until then, within the grace, so it is live too.
      assert((result.oldestLiveVersion, result.partsDeleted, result.stateFilesDeleted) === (3L, Nil, Nil))
    }
  }

  test("a version that was still the newest within the grace is live however old: a statement that read it keeps its parts") {
    withCompactedShard { (shard, dir) =>
      val now = later
      // Versions 0..6 were committed long ago; the compaction (version 7) half an hour ago.
      (0 to 6).foreach(v => new File(dir, s"state/${versionName(v)}").setLastModified(now - 5 * Hour))
      new File(dir, s"state/${versionName(7)}").setLastModified(now - Hour / 2)
      new File(dir, "parts").listFiles().foreach(_.listFiles().foreach(_.setLastModified(now - 5 * Hour)))
      val result = GarbageCollector.collect(shard, GcSettings(keepVersions = 1, graceMs = Hour), now)
      // Version 6 was the newest until half an hour ago: a statement may have read it since, and
      // still read the parts the compaction replaced.
      assert((result.oldestLiveVersion, result.partsDeleted) === (6L, Nil))
      val after = GarbageCollector.collect(shard, GcSettings(keepVersions = 1, graceMs = Hour / 4), now)
      assert(after.oldestLiveVersion === 7L && after.partsDeleted.size === 4)
    }
  }

  test("orphans of crashed writers go after the grace; a younger unreferenced file (a running write) stays") {
    withCompactedShard { (shard, dir) =>
      val now = later
      touch(new File(dir, "parts/crashed/part-00000-0000-a0.parquet"))
      new File(dir, "parts/crashed/part-00000-0000-a0.parquet").setLastModified(now - 2 * Hour)
      touch(new File(dir, "parts/running/part-00000-0000-a0.parquet"))
      new File(dir, "parts/running/part-00000-0000-a0.parquet").setLastModified(now - Hour / 2)
      val result = GarbageCollector.collect(shard, GcSettings(keepVersions = 3, graceMs = Hour), now)
      assert(result.partsDeleted === Seq("parts/crashed/part-00000-0000-a0.parquet"))
      assert(files(dir, "parts").contains("running/part-00000-0000-a0.parquet"))
      assert(!new File(dir, "parts/crashed").exists())
    }
  }

  test("a write that fails while GC lists the parts deletes its own: GC collects without them") {
    withCompactedShard { (shard, dir) =>
      // A write that lost the race deletes its batch's directory just after GC listed the parts
      // directory, before GC looked at that entry (found by StatementRaceSuite: the listing failed).
      val lost = new File(dir, "parts/lost")
      touch(new File(lost, "part-00000-0000-a0.parquet"))
      val racing = new ShardHandle(shard.name, shard.dir, shard.log, new FilterFileSystem(shard.fs) {
        override def listLocatedStatus(path: Path): RemoteIterator[LocatedFileStatus] = {
          val listed = super.listLocatedStatus(path)
          if (path.getName == ShardHandle.PartsDir) FileUtils.deleteDirectory(lost)
          listed
        }
      })
      val result = GarbageCollector.collect(racing, GcSettings(keepVersions = 1, graceMs = 0), later)
      assert(result.partsDeleted === (0 until 4).map(i => s"parts/b$i/part-0.parquet"))
      assert(new File(dir, "parts").list().sorted.toSeq === Seq("b4", "b5", "m"))
    }
  }

  test("random histories: GC never deletes a file that a live version refers to") {
    val rnd = new Random(7)
    for (round <- 0 until 5) withTempDir { root =>
      val shard = new ShardStore(root.toURI.toString, hadoopConf, rollupEvery = 1 + rnd.nextInt(4))
        .create("r", ShardFixtures.eventSchema)
      def part(id: String, lower: Long, upper: Long): BatchMeta = {
        val p = PartMeta(s"parts/$id/p.parquet", 1, 1, lower, upper - 1, hasRetractions = false, None)
        touch(new File(root, s"r/${p.key}"))
        BatchMeta(id, lower, upper, Vector(RunMeta(Vector(p))), 0L)
      }
      var n = 0
      (0 until 25).foreach { _ =>
        val state = shard.state
        if (state.batches.size >= 2 && rnd.nextInt(3) == 0) {
          val from = rnd.nextInt(state.batches.size - 1)
          val group = state.batches.slice(from, from + 2 + rnd.nextInt(2))
          n += 1
          shard.log.replaceBatches(Seq(BatchReplacement(group.map(_.id), part(s"m$n", group.head.lower, group.last.upper))))
        } else {
          n += 1
          shard.log.compareAndAppend(state.upper, part(s"a$n", state.upper, state.upper + 1 + rnd.nextInt(9)))
        }
        if (rnd.nextInt(4) == 0) {
          val keep = 1 + rnd.nextInt(4)
          val result = GarbageCollector.collect(shard, GcSettings(keep, 0), later)
          val live = shard.log.statesFrom(result.oldestLiveVersion).toSeq
          assert(live.last.seqNo === shard.state.seqNo, s"round $round")
          live.flatMap(_.parts).foreach(p => assert(new File(root, s"r/${p.key}").exists(), s"round $round: ${p.key}"))
          assert(result.partsDeleted.forall(k => !live.exists(_.parts.exists(_.key == k))))
        }
      }
      assert(new ShardStore(root.toURI.toString, hadoopConf).open("r").state === shard.state)
    }
  }
}
