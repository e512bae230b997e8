package sparkpersist.iceberg

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import sparkpersist.shard.ShardHandle

/** How the Iceberg metadata shows one shard version: the snapshot showing it, or why none does. */
final case class IcebergShown(snapshotId: Option[Long], note: Option[String])

/**
 * The shard history's side of the Iceberg metadata (`persist.<shard>.history`): per shard version, the
 * Iceberg snapshot showing it, or why there is none. A sync that cannot show a version records why
 * ([[record]]: `metadata/notes/<version>.txt`, beside the metadata), since the reason (a retraction by
 * value that no position delete can say, a schema without an Iceberg form) is found only by reading
 * the version; garbage collection deletes the notes of the versions it deletes ([[forget]]).
 */
object IcebergHistory {
  private def notesDir(shard: ShardHandle): Path = new Path(new Path(shard.dir, IcebergTables.MetadataDir), "notes")

  /** Records why `version` has no snapshot. */
  def record(shard: ShardHandle, version: Long, why: String): Unit =
    TextFiles.write(shard.fs, new Path(notesDir(shard), s"$version.txt"), why)

  /** Deletes the notes of the versions below `oldestLive`. */
  def forget(shard: ShardHandle, oldestLive: Long): Unit = noted(shard).filter(_._1 < oldestLive).foreach { case (_, note) =>
    try shard.fs.delete(note, false) catch { case NonFatal(_) => () }
  }

  /**
   * For a shard with Iceberg metadata (the table property, or the procedure run once), how it shows each
   * of `versions`; `None` for a shard without.
   */
  def of(shard: ShardHandle, versions: Seq[Long]): Option[Map[Long, IcebergShown]] =
    if (!IcebergProperty.enabled(shard.state.schema) && !shard.fs.exists(new Path(shard.dir, IcebergTables.MetadataDir))) None
    else {
      val snapshots = IcebergTables.open(shard).toSeq.flatMap(_.snapshots().asScala)
        .flatMap(s => IcebergSync.shownVersion(s).map(_ -> s.snapshotId())).toMap
      val newest = snapshots.keys.maxOption
      lazy val recorded = notes(shard)
      Some(versions.map { v =>
        v -> snapshots.get(v).fold(IcebergShown(None, Some(recorded.getOrElse(v, why(v, newest)))))(id => IcebergShown(Some(id), None))
      }.toMap)
    }

  /** Why `version` has no snapshot when no sync recorded a reason. */
  private def why(version: Long, newest: Option[Long]): String =
    if (version == 0) "version 0 creates the shard: it has no complete time to show"
    else if (newest.forall(_ < version)) "not written yet: the next commit of the shard or CALL persist.system.iceberg writes it"
    else "no snapshot: the metadata was written from a later version on (the table property was set later, or the " +
      "state log no longer held this version), or garbage collection expired its snapshot"

  /** The versions with a note, and their note files. */
  private def noted(shard: ShardHandle): Seq[(Long, Path)] = {
    val dir = notesDir(shard)
    if (!shard.fs.exists(dir)) Nil
    else shard.fs.listStatus(dir).toSeq.map(_.getPath).filter(_.getName.endsWith(".txt"))
      .flatMap(p => p.getName.stripSuffix(".txt").toLongOption.map(_ -> p))
  }

  private def notes(shard: ShardHandle): Map[Long, String] =
    noted(shard).map { case (v, p) => v -> TextFiles.read(shard.fs, p) }.toMap
}
