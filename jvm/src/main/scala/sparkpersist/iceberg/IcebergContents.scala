package sparkpersist.iceberg

import sparkpersist.plan.{ScanPlan, TableView}
import sparkpersist.positional.{PositionalSnapshot, RetractedPositions}
import sparkpersist.shard.{PartMeta, ShardHandle, ShardState}

/**
 * What the Iceberg snapshot of one shard version holds: the consolidated contents at the version's
 * latest complete time, said with files only.
 *
 *  - `dataParts`: every visible part but those a whole-part negation cancels (both are left out):
 *    insert-only parts (each row once: a part without retractions has diff +1 on every row) and the
 *    parts of row-level operations' runs, whose retractions are left out by position;
 *  - `deletes`: per positions file of those runs ([[sparkpersist.positional.RetractedPositions]]), the
 *    rows it retracts by position in the parts it names, and the retractions themselves in its run's
 *    parts: one Iceberg position delete file each ([[PositionDeletes]]).
 *
 * A version whose retractions are not all by position (an overwrite's or a RESTORE's retractions by
 * value, a compaction's consolidated multiplicities, positions that name a part compaction rewrote) has
 * no such form without reading every row: `Left` says why.
 */
final case class IcebergContents(dataParts: IndexedSeq[PartMeta], deletes: IndexedSeq[RunDeletes])

/** The retractions of one run by position: its positions file (`key`, relative to the shard) and its retracting parts. */
final case class RunDeletes(key: String, positions: RetractedPositions, retracting: IndexedSeq[PartMeta])

object IcebergContents {

  def of(shard: ShardHandle, state: ShardState): Either[String, IcebergContents] = {
    val runs = state.batches.flatMap(_.runs.map(_.parts))
    val visible = ScanPlan.withoutCancelled(TableView.Snapshot, Long.MinValue, runs).flatten
    if (!visible.exists(_.hasRetractions)) Right(IcebergContents(visible, IndexedSeq.empty))
    else PositionalSnapshot.of(shard, visible) match {
      case None => Left(s"version ${state.seqNo} retracts rows by value (an overwrite, a RESTORE, an update " +
        "write or a compaction's consolidation), which Iceberg cannot express without reading every row")
      case Some(_) =>
        val byFile = visible.filter(_.hasRetractions).groupBy(_.positions.get)
        Right(IcebergContents(visible, byFile.toIndexedSeq.sortBy(_._1).map { case (key, parts) =>
          RunDeletes(key, PositionalSnapshot.positionsFile(shard, key), parts)
        }))
    }
  }
}
