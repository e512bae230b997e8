package sparkpersist.iceberg

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.iceberg.{DataFile, DeleteFile, HasTableOperations, Schema, Snapshot, Table,
  TableMetadata}
import org.apache.iceberg.exceptions.CommitFailedException
import org.apache.spark.sql.classic.SparkSession

import sparkpersist.shard.{ShardHandle, ShardState}

/**
 * What the shard's Iceberg metadata shows after a sync: the shard version of its newest snapshot and
 * that snapshot, the metadata file, the files it reads, how many snapshots this sync wrote, and,
 * when it does not show the shard's newest version, why (`note`).
 */
final case class IcebergStatus(shardVersion: Option[Long], snapshotId: Option[Long], metadataLocation: String,
    dataFiles: Long, deleteFiles: Long, snapshotsWritten: Int, note: Option[String])

/**
 * Brings a shard's Iceberg metadata up to date: one Iceberg snapshot per shard version since the one
 * its newest snapshot shows (from the newest version alone when the metadata is new, or when the
 * state log no longer holds the versions between), each the [[IcebergContents]] of that version,
 * committed as the difference from the snapshot before it (parts added and removed, delete files
 * added and removed), its summary naming the version ([[IcebergTables.VersionKey]]). A version
 * Iceberg cannot express is skipped, and the metadata shows the last one it could.
 *
 * Any number of sessions may sync one shard at once: each commit installs the next metadata file
 * with put-if-absent ([[ShardTableOperations]]); a session that loses re-reads the metadata and
 * writes only the versions still missing, so each version is written once.
 */
object IcebergSync {

  /**
   * @param since when the metadata shows no version yet, the first version to write (a background sync:
   *              the oldest version committed since it was asked for); by default the newest alone
   */
  def sync(spark: SparkSession, shard: ShardHandle, since: Option[Long] = None): IcebergStatus = {
    val newest = shard.state
    val table = IcebergTables.open(shard)
    val from = table.flatMap(t => shownVersion(t.currentSnapshot())).map(_ + 1).orElse(since).getOrElse(newest.seqNo)
    val states = if (from > newest.seqNo) Iterator.empty else replay(shard, from, newest.seqNo)
    var current = table
    var written = 0
    var note = Option.empty[String]
    states.foreach { state =>
      IcebergSchemas.of(state.schema).flatMap(s => IcebergContents.of(spark, shard, state).map(s -> _)) match {
        case Left(why) =>
          IcebergHistory.record(shard, state.seqNo, why)
          note = Some(s"shard version ${state.seqNo} is not shown: $why")
        case Right((schema, contents)) =>
          val (t, wrote) = commitVersion(spark, shard, current, state, schema, contents)
          current = Some(t)
          if (wrote) written += 1
          note = None
      }
    }
    // A shard none of whose versions could be shown yet gets a table without snapshots, so the status names a metadata file.
    status(shard, current.getOrElse(IcebergTables.create(shard, new Schema(), 0)), written, note)
  }

  /** The states from `from` to `to`, or only `to`'s when the log no longer replays from `from`. */
  private def replay(shard: ShardHandle, from: Long, to: Long): Iterator[ShardState] =
    try shard.log.statesFrom(from).takeWhile(_.seqNo <= to).toVector.iterator
    catch { case NonFatal(_) => shard.log.statesFrom(to).take(1) }

  /** The shard version `snapshot` shows. */
  def shownVersion(snapshot: Snapshot): Option[Long] =
    Option(snapshot).flatMap(s => Option(s.summary().get(IcebergTables.VersionKey))).map(_.toLong)

  /**
   * Commits the snapshot of `state` unless the table already shows it or a later version (another
   * session wrote it). Returns the table and whether this call wrote the snapshot.
   */
  private def commitVersion(spark: SparkSession, shard: ShardHandle, table: Option[Table], state: ShardState,
      schema: Schema, contents: IcebergContents): (Table, Boolean) = {
    val t = table.getOrElse(IcebergTables.create(shard, schema, schema.highestFieldId()))
    t.refresh()
    if (shownVersion(t.currentSnapshot()).exists(_ >= state.seqNo)) (t, false)
    else try {
      withSchema(t, schema)
      val (data, deletes) = files(t)
      val wanted = contents.dataParts.map(p => IcebergTables.dataPath(shard, p.fileKey) -> p).toMap
      val wantedDeletes = contents.deletes.map(r => r.path(shard).toString -> r).toMap
      val bounded = IcebergSchemas.boundedIds(state.schema)
      t.asInstanceOf[HasTableOperations].operations() match {
        case ops: ShardTableOperations => ops.plannedOn(Option(t.currentSnapshot()).map(_.snapshotId()))
        case _ => ()
      }
      val delta = t.newRowDelta()
      data.filterNot { case (path, _) => wanted.contains(path) }.values.foreach(delta.removeRows)
      deletes.filterNot { case (path, _) => wantedDeletes.contains(path) }.values.foreach(delta.removeDeletes)
      wanted.filterNot { case (path, _) => data.contains(path) }.values.toSeq.sortBy(_.key)
        .foreach(p => delta.addRows(IcebergTables.dataFile(shard, p, schema, bounded)))
      wantedDeletes.filterNot { case (path, _) => deletes.contains(path) }.toSeq.sortBy(_._1)
        .foreach { case (_, r) => delta.addDeletes(r.file(spark, shard)) }
      delta.set(IcebergTables.VersionKey, state.seqNo.toString).commit()
      (t, true)
    } catch {
      case _: CommitFailedException => commitVersion(spark, shard, Some(t), state, schema, contents)
    }
  }

  /** Makes `schema` the table's, with the name mapping of it, if it is not already. */
  private def withSchema(table: Table, schema: Schema): Unit = {
    val mapping = IcebergSchemas.nameMapping(schema)
    if (!table.schema().sameSchema(schema) || table.properties().get(org.apache.iceberg.TableProperties.DEFAULT_NAME_MAPPING) != mapping) {
      val ops = table.asInstanceOf[HasTableOperations].operations()
      val base = ops.current()
      ops.commit(base, TableMetadata.buildFrom(base)
        .setCurrentSchema(schema, math.max(base.lastColumnId(), schema.highestFieldId()))
        .setProperties(IcebergTables.properties(schema).asJava).build())
      table.refresh()
    }
  }

  /** The data and delete files the table's current snapshot reads, by path. */
  private def files(table: Table): (Map[String, DataFile], Map[String, DeleteFile]) = Option(table.currentSnapshot()) match {
    case None => (Map.empty, Map.empty)
    case Some(s) =>
      val (data, deletes) = IcebergTables.filesOf(table, s.allManifests(table.io()).asScala)
      (data.map(f => f.location() -> f).toMap, deletes.map(f => f.location() -> f).toMap)
  }

  private def status(shard: ShardHandle, table: Table, written: Int, note: Option[String]): IcebergStatus = {
    table.refresh()
    val snapshot = Option(table.currentSnapshot())
    val total = (key: String) => snapshot.flatMap(s => Option(s.summary().get(key))).map(_.toLong).getOrElse(0L)
    IcebergStatus(snapshot.flatMap(s => shownVersion(s)), snapshot.map(_.snapshotId()),
      table.asInstanceOf[HasTableOperations].operations().current().metadataFileLocation(),
      total("total-data-files"), total("total-delete-files"), written, note)
  }
}
