package sparkpersist.shard

import scala.collection.immutable.SortedMap

import sparkpersist.schema.ShardSchema

/**
 * What committed one state version, as the shard's history shows it (Delta Lake's `commitInfo`):
 * the `operation` and its `parameters`, its `metrics` (batches, parts, updates and bytes added and
 * removed), when (`timestampMs`), who (`userName`, the Spark application `appId`), with which
 * engine (`engineInfo`: sparkpersist and Spark), the session's `userMetadata`, and for a statement
 * the upper and version of the state it read (`readUpper`, `readVersion`).
 *
 * Every version written since this record came holds it ([[VersionRecord.committed]], written by
 * the one commit path of the state log); an older version gets what its change alone says
 * ([[VersionRecord.derived]]: the operation, the metrics of what it added) and nothing else.
 */
final case class VersionRecord(
    operation: String,
    parameters: SortedMap[String, String],
    metrics: SortedMap[String, Long],
    timestampMs: Option[Long] = None,
    userName: Option[String] = None,
    appId: Option[String] = None,
    engineInfo: Option[String] = None,
    userMetadata: Option[String] = None,
    readUpper: Option[Long] = None,
    readVersion: Option[Long] = None) {

  /** Whether the version only added rows, reading nothing (Delta's `isBlindAppend`). */
  def isBlindAppend: Boolean = VersionRecord.BlindAppends(operation) && readUpper.isEmpty
}

object VersionRecord {
  val Create = "CREATE TABLE"
  val Write = "WRITE"
  val StreamingUpdate = "STREAMING UPDATE"
  val Restore = "RESTORE"
  val Compaction = "COMPACTION"
  val Clustering = "CLUSTERING"
  val DropBatch = "DROP BATCH"
  val Retention = "SET SINCE"
  val Alter = "ALTER TABLE"
  val SetProperties = "SET TBLPROPERTIES"

  /** Operations that only append rows, reading nothing of the shard. */
  private val BlindAppends = Set(Write, StreamingUpdate)

  /**
   * The record of `change`, committed now on top of `before` by the process `committer` describes:
   * everything [[derived]] says, plus what only the committer knows (the parts and rows a compaction
   * removed, which schema change an ALTER made, who and when).
   */
  def committed(change: StateDiff, before: Option[ShardState], committer: Committer): VersionRecord = {
    val record = derived(change)
    val removed = (change, before) match {
      case (ReplaceBatches(replacements), Some(b)) =>
        val ids = replacements.flatMap(_.replaced).toSet
        val gone = b.batches.filter(batch => ids(batch.id))
        Map("numRemovedParts" -> gone.map(_.partCount.toLong).sum, "numRemovedUpdates" -> gone.map(_.rowCount).sum,
          "numRemovedBytes" -> gone.map(_.bytes).sum)
      case _ => Map.empty[String, Long]
    }
    val altered = (change, before) match {
      case (AlterSchema(schema, _), Some(b)) => SchemaChangeParameters(b.schema, schema)
      case _ => Map.empty[String, String]
    }
    val operation = if (altered.nonEmpty && altered.keySet.subsetOf(SchemaChangeParameters.Properties) &&
      record.operation == Alter) SetProperties else record.operation
    record.copy(operation = operation, parameters = record.parameters ++ altered, metrics = record.metrics ++ removed,
      timestampMs = Some(committer.nowMs), userName = committer.userName, appId = committer.appId,
      engineInfo = Some(committer.engineInfo), userMetadata = record.userMetadata.orElse(committer.userMetadata))
  }

  /** What `change` alone says of the version that wrote it: its operation, parameters and what it added. */
  def derived(change: StateDiff): VersionRecord = change match {
    case CreateShard(_, _, schema) =>
      VersionRecord(Create, SortedMap.from(createParameters(schema)), SortedMap.empty)
    case AppendBatch(batch) => ofBatch(batch, Map.empty)
    case AlterSchema(_, Some(batch)) => ofBatch(batch, Map("mergeSchema" -> "true"))
    case AlterSchema(_, None) => VersionRecord(Alter, SortedMap.empty, SortedMap.empty)
    case DowngradeSince(since) => VersionRecord(Retention, SortedMap("since" -> since.toString), SortedMap.empty)
    case ReplaceBatches(replacements) =>
      val batches = replacements.map(_.batch)
      val operation =
        if (batches.forall(_.commit.exists(_.operation == DropBatch))) DropBatch
        else if (batches.exists(_.clusteredBy.nonEmpty)) Clustering
        else Compaction
      val parameters = if (operation == DropBatch) Map("batchId" -> replacements.flatMap(_.replaced).mkString(","))
        else batches.flatMap(_.commit).headOption.fold(Map.empty[String, String])(_.parameters) +
          ("groups" -> replacements.size.toString)
      VersionRecord(operation, SortedMap.from(parameters), SortedMap.from(added(batches) ++
        Map("numRemovedBatches" -> replacements.map(_.replaced.size.toLong).sum)))
  }

  /** The record of a version appending `batch`: what its writer said ([[CommitInfo]]), and what it added. */
  private def ofBatch(batch: BatchMeta, extra: Map[String, String]): VersionRecord = {
    val operation = batch.commit.map(_.operation).getOrElse(if (batch.epochs.nonEmpty) StreamingUpdate else Write)
    val epochs = batch.epochs.headOption.filter(_ => batch.epochs.size == 1).toSeq
      .flatMap(e => Seq("queryId" -> e.queryId, "epochId" -> e.epochId.toString))
    val parameters = extra ++ epochs ++ batch.commit.toSeq.flatMap(_.parameters)
    VersionRecord(operation, SortedMap.from(parameters),
      SortedMap.from(added(Seq(batch)) ++ batch.commit.toSeq.flatMap(_.metrics)),
      userMetadata = batch.commit.flatMap(_.userMetadata), readUpper = batch.commit.flatMap(_.readUpper),
      readVersion = batch.commit.flatMap(_.readVersion))
  }

  /**
   * What `batches` add: batches, parts (a negation, [[PartMeta.negated]], writes no file), updates
   * and bytes; rows inserted by insert-only parts and retracted by negations, which are exact. A part
   * holding both inserts and retractions is counted in `numUpdatesWithRetractions` (the state does not
   * split it), and then `numRetractedRows` counts only the negations.
   */
  private def added(batches: Seq[BatchMeta]): Map[String, Long] = {
    val parts = batches.flatMap(_.parts)
    val (negations, files) = parts.partition(_.negated)
    val (mixed, inserts) = files.partition(_.hasRetractions)
    Map(
      "numAddedBatches" -> batches.count(_.partCount > 0).toLong,
      "numAddedParts" -> files.size.toLong,
      "numOutputUpdates" -> files.map(_.rowCount).sum,
      "numAddedBytes" -> files.map(_.bytes).sum,
      "numInsertedRows" -> inserts.map(_.rowCount).sum,
      "numRetractedRows" -> negations.map(_.rowCount).sum,
      "numUpdatesWithRetractions" -> mixed.map(_.rowCount).sum)
  }

  private def createParameters(schema: ShardSchema): Map[String, String] =
    Map("columns" -> schema.columns.map(_.name).mkString(",")) ++
      Option(schema.orderBy).filter(_.nonEmpty).map("orderBy" -> _.mkString(",")) ++
      schema.properties.map { case (k, v) => s"property.$k" -> v }
}
