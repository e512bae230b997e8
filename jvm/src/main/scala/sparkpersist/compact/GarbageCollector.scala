package sparkpersist.compact

import java.io.IOException

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{IntegerType, LongType, StringType}

import sparkpersist.PersistConf
import sparkpersist.codec.Check
import sparkpersist.iceberg.IcebergExpiry
import sparkpersist.shard.{ShardHandle, StateListing}

/**
 * Which state versions garbage collection keeps live: the newest `keepVersions`, and every
 * version that was still the newest less than `graceMs` ago. `graceMs` also shields files no
 * version refers to yet (a write or compaction still running).
 */
final case class GcSettings(keepVersions: Int, graceMs: Long) {
  Check.arg(keepVersions >= 1, s"keepVersions must be at least 1, got $keepVersions")
  Check.arg(graceMs >= 0, s"graceMs must not be negative, got $graceMs")
}

object GcSettings {
  def of(conf: SQLConf): GcSettings = GcSettings(
    math.min(PersistConf.GcKeepVersions.get(conf), Int.MaxValue.toLong).toInt, PersistConf.GcGraceMs.get(conf))
}

/** What one garbage collection deleted, and the live versions it kept `[oldestLive, newest]`. */
final case class GcResult(
    shard: String,
    oldestLiveVersion: Long,
    newestVersion: Long,
    partsDeleted: Seq[String],
    bytesDeleted: Long,
    partsKept: Int,
    stateFilesDeleted: Seq[String]) extends LifecycleResult {

  def fields: Seq[ResultField] = Seq(
    ResultField("shard", StringType, shard),
    ResultField("oldest_live_version", LongType, oldestLiveVersion),
    ResultField("newest_version", LongType, newestVersion),
    ResultField("parts_deleted", IntegerType, partsDeleted.size),
    ResultField("bytes_deleted", LongType, bytesDeleted),
    ResultField("parts_kept", IntegerType, partsKept),
    ResultField("state_files_deleted", IntegerType, stateFilesDeleted.size))
}

/**
 * Garbage collection of one shard (Delta's VACUUM and Iceberg's expire_snapshots plus
 * remove_orphan_files, in one):
 *
 *  1. **Live versions**: the newest `keepVersions` state versions and every version that was still
 *     the newest less than `graceMs` ago. A reader (or a statement) that opened the shard at a live
 *     version keeps its files, so one that runs for less than the grace never loses a part.
 *  2. **Parts**: a file under `parts/` that no live version refers to and that is older than
 *     `graceMs` is deleted: parts that compaction replaced, and orphans left by crashed writers
 *     (written, never committed). A part younger than the grace may belong to a write or
 *     compaction still running, so the grace must exceed the longest write.
 *  3. **Iceberg metadata** (`sparkpersist.iceberg`): the Iceberg snapshots of versions below the oldest
 *     live one are expired first; the parts of the one kept in any case (the current snapshot) are kept.
 *  4. **State versions**: versions and rollups older than the newest rollup at or below the
 *     oldest live version are deleted (never version 0, which marks the shard as existing), so
 *     the log keeps exactly what opening the shard and replaying the live versions need.
 *
 * It lists the part files before it replays the live versions, and versions committed after the
 * replay only refer to parts of the newest state it replayed or to parts written since (younger
 * than the grace): it never deletes a part that a live version refers to.
 */
object GarbageCollector {

  def collect(shard: ShardHandle, settings: GcSettings, nowMs: Long = System.currentTimeMillis()): GcResult = {
    val fs = shard.fs
    // Files first, then the versions: every version that could refer to a listed file is replayed.
    val partsDir = new Path(shard.dir, ShardHandle.PartsDir)
    val files = if (!fs.exists(partsDir)) Nil else filesUnder(fs, partsDir)
    val listing = shard.log.listing()
    val oldestLive = oldestLiveVersion(listing, settings, nowMs)
    val cutoff = nowMs - settings.graceMs
    // The Iceberg snapshots of versions below the oldest live one go first; the one it keeps that may be older keeps its parts.
    val referenced = referencedParts(shard, oldestLive, listing.newest) ++ IcebergExpiry.expireBelow(shard, oldestLive, cutoff)
    val (kept, doomed) = files.partition(f => referenced(shard.relativeKey(f.getPath)) || f.getModificationTime > cutoff)
    doomed.foreach(f => fs.delete(f.getPath, false))
    doomed.map(_.getPath.getParent).distinct.foreach { dir =>
      if (fs.exists(dir) && contents(fs, dir).isEmpty) fs.delete(dir, false)
    }
    val truncatedBefore = listing.rollups.map(_.seqNo).filter(_ <= oldestLive).maxOption
    val stateDeleted = truncatedBefore.toSeq.flatMap(shard.log.truncateBefore)
    GcResult(shard.name, oldestLive, listing.newest, doomed.map(f => shard.relativeKey(f.getPath)).sorted,
      doomed.map(_.getLen).sum, kept.size, stateDeleted)
  }

  /**
   * The files under `dir`, by one recursive listing (a few requests on an object store). A write
   * that fails deletes its parts, maybe while they are being listed, which fails a listing that
   * descends directory by directory (on local disk, found by `StatementRaceSuite`): then by a walk
   * that takes a directory gone meanwhile as empty.
   */
  private def filesUnder(fs: FileSystem, dir: Path): Seq[FileStatus] =
    try {
      val it = fs.listFiles(dir, true)
      Iterator.continually(it).takeWhile(_.hasNext).map(_.next()).toList
    } catch {
      case NonFatal(_) => walk(fs, dir)
    }

  private def walk(fs: FileSystem, dir: Path): Seq[FileStatus] =
    contents(fs, dir).flatMap(s => if (s.isDirectory) walk(fs, s.getPath) else Seq(s))

  /** What directory `dir` holds: nothing once it is gone. */
  private def contents(fs: FileSystem, dir: Path): Seq[FileStatus] =
    try fs.listStatus(dir).toSeq
    catch { case _: IOException if !fs.exists(dir) => Nil }

  /**
   * The oldest version that is among the newest `keepVersions` or was still the newest less than
   * the grace ago (the version after it is younger than the grace): a reader or a statement that
   * opened the shard then may still read it, however old the version itself. Only the unbroken run
   * of versions ending at the newest counts: a version an earlier collection left behind a gap
   * (version 0) cannot be replayed and holds no reader's files.
   */
  private[compact] def oldestLiveVersion(listing: StateListing, settings: GcSettings, nowMs: Long): Long = {
    val newest = listing.newest
    val unbroken = listing.versions.reverseIterator.zipWithIndex
      .takeWhile { case (v, i) => v.seqNo == newest - i }.map(_._1).toVector
    val newestUntil = None +: unbroken.map(v => Option(v.modifiedMs)) // when each was succeeded, newest first
    unbroken.zip(newestUntil).filter { case (v, succeeded) =>
      v.seqNo > newest - settings.keepVersions || succeeded.forall(_ > nowMs - settings.graceMs)
    }.map(_._1.seqNo).minOption.getOrElse(newest)
  }

  /**
   * The keys of every part of every state from version `from` to `newest` at least; fails,
   * deleting nothing, when the log cannot replay that far.
   */
  private def referencedParts(shard: ShardHandle, from: Long, newest: Long): Set[String] = {
    val keys = mutable.HashSet.empty[String]
    val seenBatches = mutable.HashSet.empty[String]
    var last = -1L
    shard.log.statesFrom(from).foreach { state =>
      last = state.seqNo
      state.batches.foreach { b =>
        if (seenBatches.add(b.id)) b.parts.foreach { p =>
          keys += p.fileKey
          p.positions.foreach(keys += _)
        }
      }
    }
    if (last < newest) throw new IllegalStateException(s"Shard '${shard.name}': its state log replays from " +
      s"version $from only to $last, not to the newest listed version $newest; nothing was collected.")
    keys.toSet
  }
}
