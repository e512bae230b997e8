package sparkpersist.shard

import java.io.File
import java.nio.file.Files

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.shard.ShardFixtures._

/**
 * The history the state log reads ([[StateLog.history]]): the record each version holds, what a
 * version written before records came shows (derived from its change alone), and the versions
 * garbage collection left.
 */
class VersionHistorySuite extends AnyFunSuite {

  test("versions written before records show what their change says, timed by their file") {
    withTempDir { dir =>
      val stateDir = new File(dir, "events/state")
      stateDir.mkdirs()
      val files = StateFiles.encodings(new Random(7)).filterNot(_.isRollup)
      files.foreach(f => Files.write(new File(stateDir, f.name).toPath, f.bytes))
      val log = new FsStateLog("events", new org.apache.hadoop.fs.Path(stateDir.toURI), hadoopConf)
      val history = log.history()
      assert(history.map(_.seqNo) === (5L to 0L by -1))
      val decoded = files.map(f => f.seqNo -> StateFiles.decode(f, f.bytes)).toMap
      history.foreach { e =>
        assert(e.record.userName.isEmpty && e.record.appId.isEmpty && e.record.engineInfo.isEmpty)
        assert(e.timestampMs === new File(stateDir, FsStateLog.versionName(e.seqNo)).lastModified())
        assert(e.record === VersionRecord.derived(decoded(e.seqNo).asInstanceOf[StateDiff]))
      }
      assert(history.reverse.map(_.record.operation) ===
        Seq("CREATE TABLE", "WRITE", "WRITE", "WRITE", "COMPACTION", "SET SINCE"))
      val b0 = decoded(1L).asInstanceOf[AppendBatch].batch
      val first = history.find(_.seqNo == 1L).get.record
      assert(first.metrics === Map("numAddedBatches" -> 1L, "numAddedParts" -> b0.partCount.toLong,
        "numOutputUpdates" -> b0.rowCount, "numAddedBytes" -> b0.bytes, "numInsertedRows" -> b0.rowCount,
        "numRetractedRows" -> 0L, "numUpdatesWithRetractions" -> 0L))
      assert(first.isBlindAppend)
      val compaction = history.find(_.seqNo == 4L).get.record
      // What it removed needs the state before it, which a version alone does not hold.
      assert(compaction.metrics("numRemovedBatches") === 2L && !compaction.metrics.contains("numRemovedParts"))
    }
  }

  test("the versions garbage collection deleted have no row; version 0 stays") {
    withTempDir { dir =>
      val store = new ShardStore(dir.toURI.toString, hadoopConf, rollupEvery = 4)
      store.create("s", eventSchema)
      val log = store.open("s").log
      (0 until 9).foreach(i => log.compareAndAppend(i * 10L, eventBatch(s"b$i", i * 10L, i * 10L + 10, 1, new Random(i))))
      log.truncateBefore(8)
      val history = log.history()
      assert(history.map(_.seqNo) === Seq(9L, 8L, 0L))
      assert(log.history(limit = 2).map(_.seqNo) === Seq(9L, 8L))
      assert(history.map(_.record.operation) === Seq("WRITE", "WRITE", "CREATE TABLE"))
      assert(history.forall(e => e.record.timestampMs.nonEmpty && e.record.engineInfo.contains(Committer.EngineInfo)))
    }
  }
}
