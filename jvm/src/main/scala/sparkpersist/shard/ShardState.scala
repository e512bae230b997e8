package sparkpersist.shard

import sparkpersist.schema.ShardSchema
import sparkpersist.stats.PartStats

/**
 * One Parquet file of a shard. `key` is its path relative to the shard's directory. Rows are
 * sorted by the shard's order key, then time. `stats` is absent when it could not be computed
 * (readers then treat every column as "anything").
 *
 * A **negated** part ([[negation]]) writes no file: its key is an insert-only part's key plus
 * [[PartMeta.NegatedSuffix]], and it stands for every row of that file retracted at one time
 * (`minTime == maxTime`, diff -1 on every row): a `DELETE` that the filter proves true on whole
 * parts retracts them so, reading and writing none of their rows. Its statistics are the file's.
 *
 * A part with **positions** (a part of a row-level operation's run) names, in the file of
 * `positions` (a key relative to the shard's directory, shared by the parts of one run,
 * [[sparkpersist.dml.RetractedPositions]]), the part and row position of the row each of its
 * retractions retracts: a snapshot read may then leave out those rows and those retractions
 * without comparing values.
 *
 * A **rebased** part (`rebasedFrom`) is one whose updates all have one time, which a commit moved
 * to a later one when it rebased its batch over batches committed since its write began
 * ([[BatchMeta.rebased]]): its file holds the time `rebasedFrom`, its updates have the time
 * `minTime`, and readers take the time from here, never from the file.
 */
final case class PartMeta(
    key: String,
    rowCount: Long,
    bytes: Long,
    minTime: Long,
    maxTime: Long,
    hasRetractions: Boolean,
    stats: Option[PartStats],
    positions: Option[String] = None,
    rebasedFrom: Option[Long] = None) {

  /** Whether this part retracts, at its one time, every row of the file of [[fileKey]]. */
  def negated: Boolean = key.endsWith(PartMeta.NegatedSuffix)

  /** The key of the file this part reads. */
  def fileKey: String = if (negated) key.dropRight(PartMeta.NegatedSuffix.length) else key

  /** This insert-only part's rows, every one retracted at `time`, as a part of no file of its own. */
  def negation(time: Long): PartMeta = {
    require(!hasRetractions && !negated, s"only an insert-only part can be negated whole, not $key")
    copy(key = key + PartMeta.NegatedSuffix, minTime = time, maxTime = time, hasRetractions = true)
  }

  /**
   * This part of one time, its updates moved to `time` (no earlier than theirs): a negation holds
   * its time here only; another part records the time its file holds ([[rebasedFrom]]).
   */
  def at(time: Long): PartMeta = {
    require(minTime == maxTime && time >= minTime, s"part $key of times [$minTime, $maxTime] cannot move to $time")
    if (time == minTime) this
    else copy(minTime = time, maxTime = time, rebasedFrom = if (negated) None else rebasedFrom.orElse(Some(minTime)))
  }
}

object PartMeta {
  /** Ends the key of a negated part: a name no part file has. */
  val NegatedSuffix = "#negated"
}

/** A sorted sequence of parts (one write task's output). */
final case class RunMeta(parts: IndexedSeq[PartMeta])

/**
 * A micro-batch of a streaming query that wrote to a shard: the query's id (stable across
 * restarts from one checkpoint) and the epoch (micro-batch) id. A batch that records it lets
 * the sink recognise a replayed epoch and not write it twice.
 */
final case class StreamEpoch(queryId: String, epochId: Long)

object StreamEpoch {
  /** The newest epoch per query among `epochs` (what a merge of batches keeps). */
  def newest(epochs: Iterable[StreamEpoch]): IndexedSeq[StreamEpoch] =
    epochs.groupBy(_.queryId).values.map(_.maxBy(_.epochId)).toIndexedSeq.sortBy(_.queryId)
}

/**
 * What wrote a batch, as the committing session knew it: the `operation` (`DELETE`, `UPDATE`,
 * `MERGE`, an overwrite, ...), for a statement the upper and version of the state it read
 * (`readUpper`: its snapshot is as of `readUpper - 1`; below the batch's lower when the commit was
 * rebased over batches committed meanwhile; `readVersion`, Delta's), and the session's `spark.sparkpersist.commit.userMetadata`; the
 * operation's own `parameters` and `metrics` where its writer knows them (a RESTORE's version, the
 * rows it retracted and inserted), which the shard's history shows beside those the state implies
 * ([[VersionRecord]]).
 */
final case class CommitInfo(operation: String, readUpper: Option[Long] = None, userMetadata: Option[String] = None,
    parameters: Map[String, String] = Map.empty, metrics: Map[String, Long] = Map.empty, readVersion: Option[Long] = None)

object CommitInfo {
  /** What `operation` (of a statement that read the shard's state `read`) commits in a session of `conf`. */
  def inSession(conf: org.apache.spark.sql.internal.SQLConf, operation: String, read: Option[ShardState] = None,
      parameters: Map[String, String] = Map.empty, metrics: Map[String, Long] = Map.empty): CommitInfo =
    CommitInfo(operation, read.map(_.upper), sparkpersist.PersistConf.CommitUserMetadata.get(conf), parameters, metrics,
      read.map(_.seqNo))
}

/**
 * The updates of one append, or of several adjacent appends a compaction merged: every update
 * has `lower <= time < upper`. `appends` counts the appended batches it holds (1 for an append).
 * `epochs` names the streaming micro-batches that wrote it (one for a batch a streaming sink
 * committed; a merged batch keeps the newest epoch of each query it holds). `clusteredBy` holds
 * the ids of the columns a clustering compaction laid its rows out by (empty for any other batch):
 * each of its runs is one part, covering a narrow range of the curve along those columns.
 * `commit` says what wrote it, when its writer said ([[CommitInfo]]; a merged batch names the compaction
 * and its settings, or none if an older release merged it).
 */
final case class BatchMeta(
    id: String,
    lower: Long,
    upper: Long,
    runs: IndexedSeq[RunMeta],
    committedAtMs: Long,
    appends: Long = 1L,
    epochs: IndexedSeq[StreamEpoch] = IndexedSeq.empty,
    clusteredBy: IndexedSeq[Int] = IndexedSeq.empty,
    commit: Option[CommitInfo] = None) {
  def parts: Iterator[PartMeta] = runs.iterator.flatMap(_.parts)

  def partCount: Int = runs.iterator.map(_.parts.size).sum

  def rowCount: Long = parts.map(_.rowCount).sum

  def bytes: Long = parts.map(_.bytes).sum

  def hasRetractions: Boolean = parts.exists(_.hasRetractions)

  /** Whether every update of this batch has one time (a statement's batch), so it can be [[rebased]]. */
  def oneTime: Boolean = parts.forall(p => p.minTime == p.maxTime) && parts.map(_.minTime).distinct.size <= 1

  /**
   * This batch of [[oneTime]], committed at `newLower` (a later upper of the shard) instead: its
   * updates moved to `time` (at least `newLower`, and no earlier than theirs), its parts rebased
   * ([[PartMeta.at]]), no file rewritten.
   */
  def rebased(newLower: Long, time: Long): BatchMeta = {
    require(oneTime, s"batch $id holds updates of several times and cannot be rebased")
    require(time >= newLower && newLower >= lower, s"batch $id cannot move from $lower to $newLower at time $time")
    copy(lower = newLower, upper = time + 1, runs = runs.map(r => RunMeta(r.parts.map(_.at(time)))))
  }
}

/**
 * The metadata of a shard at one state version (`seqNo`). Every update with time < `upper`
 * is durable; history before `since` may be compacted, so reads as of t < since are refused.
 * State only moves forward by compare-and-set on `seqNo` (see [[StateLog]]).
 */
final case class ShardState(
    name: String,
    shardId: String,
    formatVersion: Int,
    schema: ShardSchema,
    since: Long,
    upper: Long,
    seqNo: Long,
    batches: IndexedSeq[BatchMeta]) {

  def parts: Iterator[PartMeta] = batches.iterator.flatMap(_.parts)

  def partCount: Int = batches.iterator.map(_.runs.iterator.map(_.parts.size).sum).sum

  def hasRetractions: Boolean = parts.exists(_.hasRetractions)

  /** An empty shard has upper == 0: it holds no complete time yet. */
  def isEmpty: Boolean = batches.isEmpty
}

object ShardState {
  /** The on-disk format version this code writes (state and part footers). */
  val FormatVersion = 2

  /**
   * The format version of a state version that replaces batches ([[ReplaceBatches]]): a reader
   * older than compaction refuses it as too new instead of misreading it. Every other state file
   * stays at [[FormatVersion]], so a shard that was never compacted stays readable by them.
   */
  val CompactionFormatVersion = 3

  /**
   * The format version of a state version that changes the schema ([[AlterSchema]]): a reader
   * older than schema evolution refuses it as too new instead of misreading it.
   */
  val SchemaEvolutionFormatVersion = 4

  /**
   * The format version of a columnar rollup ([[ColumnarRollup]]): a Parquet file, which readers
   * older than it cannot read. State versions stay JSON at the versions above.
   */
  val ColumnarRollupFormatVersion = 5

  /**
   * The format version of a state file whose schema gives ids to fields inside structs
   * ([[sparkpersist.schema.NestedFieldIds]]): a reader older than them would match such fields by
   * name, and show a renamed field as null or a dropped one's data, so it refuses the file as too new.
   * An "alter" that appends a batch too (a write merging its schema) has this version: an older
   * reader would skip the batch.
   */
  val NestedFieldIdsFormatVersion = 6

  /**
   * The format version of a state file whose schema marks index columns (the table property
   * `sparkpersist.indexColumns`, [[sparkpersist.schema.ColumnDef.indexed]]): a reader older than
   * them would drop the property on its next schema change, so it refuses the file as too new.
   */
  val IndexColumnsFormatVersion = 7

  /**
   * The format version of a state file whose schema names clustering columns
   * ([[sparkpersist.schema.ColumnDef.clustered]]) or that holds a clustered batch
   * ([[BatchMeta.clusteredBy]]): a reader older than clustering would drop the columns on its next
   * schema change and merge clustered batches back into one run, so it refuses the file as too new.
   */
  val ClusteringFormatVersion = 8

  /**
   * The format version of a state file holding a part with positions ([[PartMeta.positions]]): a
   * reader older than them would read such a part alone and could not tell its retractions from
   * the rows they name, so it refuses the file as too new.
   */
  val PositionalRetractionsFormatVersion = 9

  /**
   * The format version of a state file holding a rebased part ([[PartMeta.rebasedFrom]]): a reader
   * older than rebasing would take the time of its updates from its file, so it refuses the file
   * as too new.
   */
  val RebasedPartsFormatVersion = 10

  /**
   * The format version of a state file whose schema holds table properties
   * ([[sparkpersist.schema.ShardSchema.properties]]): a reader older than them would drop them on
   * its next schema change, so it refuses the file as too new.
   */
  val TablePropertiesFormatVersion = 11

  /**
   * The format version of a file holding `schema` and `batches`, else `base`: the newest a feature
   * of either needs.
   */
  def versionFor(schema: ShardSchema, base: Int, batches: Iterable[BatchMeta] = Nil): Int =
    versionOfBatches(
      if (schema.properties.nonEmpty) math.max(base, TablePropertiesFormatVersion)
      else if (schema.clusters) math.max(base, ClusteringFormatVersion)
      else if (schema.indexedIds.nonEmpty) math.max(base, IndexColumnsFormatVersion)
      else if (schema.hasFieldIds) math.max(base, NestedFieldIdsFormatVersion)
      else base,
      batches)

  /** The format version of a file holding `batches`, else `base`: the newest a feature of theirs needs. */
  def versionOfBatches(base: Int, batches: Iterable[BatchMeta]): Int =
    if (batches.exists(_.parts.exists(_.rebasedFrom.nonEmpty))) math.max(base, RebasedPartsFormatVersion)
    else if (batches.exists(_.parts.exists(_.positions.nonEmpty))) math.max(base, PositionalRetractionsFormatVersion)
    else if (batches.exists(_.clusteredBy.nonEmpty)) math.max(base, ClusteringFormatVersion)
    else base
}
