package sparkpersist.iceberg

import org.apache.hadoop.fs.Path
import org.apache.iceberg.DeleteFile
import org.apache.spark.sql.classic.SparkSession

import sparkpersist.plan.{ScanPlan, TableView}
import sparkpersist.positional.{PositionalSnapshot, RetractedPositions}
import sparkpersist.shard.{PartMeta, ShardHandle, ShardState}

/**
 * What the Iceberg snapshot of one shard version holds: the consolidated contents at the version's
 * latest complete time, said with files only.
 *
 *  - `dataParts`: every visible part but those a whole-part negation cancels (both are left out):
 *    insert-only parts (each row once: a part without retractions has diff +1 on every row) and the
 *    parts holding retractions, whose retractions and the rows they cancel are deleted by position;
 *  - `deletes`: the Iceberg position delete files that say which rows: when every retraction is by
 *    position, per positions file of those runs ([[sparkpersist.positional.RetractedPositions]]) the
 *    rows it retracts in the parts it names and the retractions themselves in its run's parts
 *    ([[RunDeletes]], one file each); else one file of the rows found by matching retractions to rows by
 *    value ([[ValueDeletes]], computed once per set of parts).
 *
 * A version whose rows by value have no such form (a row kept more often than it is held by rows of
 * multiplicity 1, after a compaction consolidated its copies) is `Left`, saying why.
 */
final case class IcebergContents(dataParts: IndexedSeq[PartMeta], deletes: IndexedSeq[SnapshotDeletes])

/** One Iceberg position delete file of a snapshot: where it is, and how it is written if it is not there yet. */
sealed trait SnapshotDeletes {
  def path(shard: ShardHandle): Path

  /** The file, written first if it must be, as Iceberg's metadata of it. */
  def file(spark: SparkSession, shard: ShardHandle): DeleteFile
}

/** The retractions of one run by position: its positions file (`key`, relative to the shard) and its retracting parts. */
final case class RunDeletes(key: String, positions: RetractedPositions, retracting: IndexedSeq[PartMeta])
    extends SnapshotDeletes {
  override def path(shard: ShardHandle): Path = PositionDeletes.path(shard, key)
  override def file(spark: SparkSession, shard: ShardHandle): DeleteFile = PositionDeletes.write(spark, shard, this)
}

/** The deletes found by value ([[ValueDeletes]]), written when they were found. */
final case class MatchedDeletes(found: ValueDeletes) extends SnapshotDeletes {
  override def path(shard: ShardHandle): Path = found.path
  override def file(spark: SparkSession, shard: ShardHandle): DeleteFile = PositionDeletes.fileOf(shard, found.path, found.records)
}

object IcebergContents {

  def of(spark: SparkSession, shard: ShardHandle, state: ShardState): Either[String, IcebergContents] = {
    val runs = state.batches.flatMap(_.runs.map(_.parts))
    val visible = ScanPlan.withoutCancelled(TableView.Snapshot, Long.MinValue, runs).flatten
    if (!visible.exists(_.hasRetractions)) Right(IcebergContents(visible, IndexedSeq.empty))
    else PositionalSnapshot.of(shard, visible) match {
      case None =>
        val batchOf = state.batches.zipWithIndex.flatMap { case (b, i) => b.parts.map(_.key -> i) }.toMap
        ValueDeletes.of(spark, shard, state.schema, visible, p => batchOf(p.key))
          .map(found => IcebergContents(visible, IndexedSeq(MatchedDeletes(found))))
          .left.map(why => s"version ${state.seqNo} retracts rows by value, and $why")
      case Some(_) =>
        val byFile = visible.filter(_.hasRetractions).groupBy(_.positions.get)
        Right(IcebergContents(visible, byFile.toIndexedSeq.sortBy(_._1).map { case (key, parts) =>
          RunDeletes(key, PositionalSnapshot.positionsFile(shard, key), parts)
        }))
    }
  }
}
