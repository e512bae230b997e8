package sparkpersist.iceberg

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.iceberg.ExpireSnapshots.CleanupLevel
import org.apache.spark.sql.SparkSession

import sparkpersist.PersistConf
import sparkpersist.shard.ShardHandle

/**
 * Garbage collection's side of the Iceberg metadata: before the collection deletes the parts no live
 * shard version refers to, the Iceberg snapshots of the versions below the oldest live one are expired
 * (their manifests and manifest lists deleted by Iceberg; the data files are the collection's), but
 * never the current snapshot. What the collection must then keep besides the live versions' parts are
 * the parts that snapshot reads ([[expireBelow]]'s result): it may show a version older than the
 * oldest live one when the versions since could not be shown. Waits first for this driver's background syncs
 * of the shard ([[IcebergSyncQueue]]). Delete files no remaining snapshot
 * reads, older than `cutoff` (a sync may be writing a newer one), are deleted.
 */
object IcebergExpiry {

  /** Expires as above; returns the keys (relative to the shard) of the parts the remaining snapshots read. */
  def expireBelow(shard: ShardHandle, oldestLive: Long, cutoffMs: Long): Set[String] = {
    // This driver's background syncs of the shard first: a sync planned before the collection could name a part it deletes.
    IcebergSyncQueue.awaitShard(shard, SparkSession.getActiveSession.fold(PersistConf.IcebergAsyncWaitMs.default)(s =>
      PersistConf.IcebergAsyncWaitMs.get(s.sessionState.conf)))
    expire(shard, oldestLive, cutoffMs)
  }

  private def expire(shard: ShardHandle, oldestLive: Long, cutoffMs: Long): Set[String] = IcebergTables.open(shard) match {
    case None => Set.empty
    case Some(table) =>
      val current = Option(table.currentSnapshot()).map(_.snapshotId())
      val expired = table.snapshots().asScala.filter(s => !current.contains(s.snapshotId()) &&
        IcebergSync.shownVersion(s).forall(_ < oldestLive)).map(_.snapshotId())
      if (expired.nonEmpty) {
        val expire = table.expireSnapshots().cleanupLevel(CleanupLevel.METADATA_ONLY)
        expired.foreach(expire.expireSnapshotId)
        expire.commit()
        table.refresh()
      }
      IcebergHistory.forget(shard, oldestLive)
      val (data, deletes) = remaining(table)
      deleteUnread(shard, deletes, cutoffMs)
      val prefix = IcebergTables.dataPath(shard, "x").stripSuffix("x")
      data.filter(_.startsWith(prefix)).map(_.substring(prefix.length))
  }

  /** The data and delete file paths of every snapshot the table keeps. */
  private def remaining(table: org.apache.iceberg.Table): (Set[String], Set[String]) = {
    val manifests = table.snapshots().asScala.flatMap(_.allManifests(table.io()).asScala).map(m => m.path() -> m).toMap.values
    val (data, deletes) = IcebergTables.filesOf(table, manifests)
    (data.map(_.location()).toSet, deletes.map(_.location()).toSet)
  }

  private def deleteUnread(shard: ShardHandle, read: Set[String], cutoffMs: Long): Unit = {
    val dir = PositionDeletes.path(shard, "x").getParent
    if (shard.fs.exists(dir)) shard.fs.listStatus(dir).foreach { f =>
      val path = shard.fs.makeQualified(f.getPath)
      if (!read(path.toString) && f.getModificationTime <= cutoffMs) {
        try shard.fs.delete(path, false) catch { case NonFatal(_) => () }
      }
    }
  }
}
