package sparkpersist.iceberg

import java.nio.charset.StandardCharsets

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.iceberg.{TableMetadata, TableMetadataParser, TableProperties}
import org.apache.iceberg.exceptions.CommitFailedException
import org.apache.iceberg.hadoop.{HadoopFileIO, HadoopTableOperations}
import org.apache.iceberg.util.LockManagers

import sparkpersist.shard.{PutIfAbsent, ShardHandle}

/**
 * Iceberg's Hadoop-table operations on the metadata under a shard's directory, committing each new
 * `metadata/v<N>.metadata.json` with the store's put-if-absent ([[PutIfAbsent]], the primitive the
 * state log commits with) instead of Iceberg's check-then-rename, which two processes can both pass on
 * a local disk: of two sessions racing to write version N of the metadata, exactly one wins and the
 * other's commit fails with Iceberg's [[CommitFailedException]] (the sync then re-reads and goes on).
 * `version-hint.text` is written after, as Iceberg's own Hadoop tables do; readers that find it stale
 * probe for newer versions.
 */
private[iceberg] final class ShardTableOperations(shard: ShardHandle)
    extends HadoopTableOperations(new Path(shard.fs.makeQualified(shard.dir).toString), new HadoopFileIO(shard.fs.getConf),
      shard.fs.getConf, LockManagers.defaultLockManager()) {

  private val metadataDir = new Path(shard.fs.makeQualified(shard.dir), IcebergTables.MetadataDir)
  private lazy val put = PutIfAbsent.forStore(shard.fs, metadataDir, shard.fs.getConf)

  /** The snapshot (None: no snapshot) the next snapshot's files were planned against, once [[plannedOn]] says. */
  @volatile private var planned: Option[Option[Long]] = None

  /**
   * Says which snapshot the next snapshot's added and removed files were planned against: its commit
   * fails unless the metadata still shows that snapshot, since Iceberg applies the planned changes onto
   * whatever metadata it re-reads (a part another session added meanwhile would be added twice).
   */
  def plannedOn(snapshot: Option[Long]): Unit = planned = Some(snapshot)

  override def commit(base: TableMetadata, metadata: TableMetadata): Unit = {
    val location = (m: TableMetadata) => Option(m).map(_.metadataFileLocation())
    if (location(base) != location(refresh())) throw new CommitFailedException("Cannot commit: the Iceberg metadata of shard '%s' changed", shard.name)
    refuseStale(base, metadata)
    val version = Option(base).map(b => ShardTableOperations.versionOf(b.metadataFileLocation()) + 1).getOrElse(1)
    val file = new Path(metadataDir, s"v$version.metadata.json")
    shard.fs.mkdirs(metadataDir)
    if (!put(file, TableMetadataParser.toJson(metadata).getBytes(StandardCharsets.UTF_8))) {
      throw new CommitFailedException("Cannot commit version %s of the Iceberg metadata of shard '%s': another " +
        "session wrote it first", Int.box(version), shard.name)
    }
    writeHint(version)
    deleteDropped(base, metadata)
    refresh()
  }

  /**
   * A new snapshot must show a later shard version than the one before it. Iceberg applies a pending
   * snapshot onto the newest metadata it re-reads just before committing; if another session wrote the
   * same or a later version meanwhile, or any snapshot since the one the files were planned against
   * ([[plannedOn]]), the files added and removed were planned against an older snapshot, and the commit
   * fails instead (the sync re-reads and plans again, or skips what is written).
   */
  private def refuseStale(base: TableMetadata, metadata: TableMetadata): Unit = {
    val before = Option(base).flatMap(b => Option(b.currentSnapshot()))
    val after = Option(metadata.currentSnapshot())
    if (after.map(_.snapshotId()) != before.map(_.snapshotId())) {
      planned.filter(_ != before.map(_.snapshotId())).foreach { p =>
        throw new CommitFailedException("Cannot commit a snapshot of shard '%s' planned against snapshot %s: the Iceberg " +
          "metadata shows snapshot %s now", shard.name, p.fold("none")(_.toString), before.fold("none")(_.snapshotId().toString))
      }
      for (b <- before.flatMap(IcebergSync.shownVersion); a <- after.flatMap(IcebergSync.shownVersion) if a <= b) {
        throw new CommitFailedException("Cannot commit the snapshot of shard version %s of shard '%s': the Iceberg " +
          "metadata shows version %s already", Long.box(a), shard.name, Long.box(b))
      }
    }
  }

  /**
   * Replaces `version-hint.text` whole: written beside it, then renamed onto it (an atomic replace on
   * local disks; on object stores the copy is one PUT), so a reader never finds it empty or half
   * written. Where rename does not replace (HDFS), the old hint is deleted first, as Iceberg's own
   * Hadoop tables do: a reader that finds no hint lists the metadata files.
   */
  private def writeHint(version: Int): Unit = {
    val hint = new Path(metadataDir, "version-hint.text")
    val temp = new Path(metadataDir, s".version-hint-${java.util.UUID.randomUUID()}.tmp")
    val out = shard.fs.create(temp, false)
    try out.write(version.toString.getBytes(StandardCharsets.UTF_8)) finally out.close()
    if (!shard.fs.rename(temp, hint)) {
      shard.fs.delete(hint, false)
      if (!shard.fs.rename(temp, hint)) {
        shard.fs.delete(temp, false)
        throw new java.io.IOException(s"Could not replace $hint")
      }
    }
  }

  /** The metadata files `metadata` no longer lists that `base` did (`write.metadata.previous-versions-max`). */
  private def deleteDropped(base: TableMetadata, metadata: TableMetadata): Unit =
    if (base != null && metadata.propertyAsBoolean(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, false)) {
      val kept = metadata.previousFiles().asScala.map(_.file()).toSet
      (base.previousFiles().asScala.map(_.file()) :+ base.metadataFileLocation()).filterNot(kept).foreach { f =>
        try shard.fs.delete(new Path(f), false)
        catch { case NonFatal(_) => () } // an old metadata file left behind is only space
      }
    }
}

private[iceberg] object ShardTableOperations {
  private val Version = """.*/v(\d+)\.metadata\.json""".r

  def versionOf(location: String): Int = location match {
    case Version(n) => n.toInt
    case other => throw new IllegalStateException(s"$other is not a metadata file of a Hadoop table")
  }
}
