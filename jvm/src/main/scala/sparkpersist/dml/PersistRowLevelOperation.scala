package sparkpersist.dml

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{DeltaWrite, DeltaWriteBuilder, LogicalWriteInfo, SupportsDelta}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.isolation.StatementReads
import sparkpersist.plan.{ScanPlan, ScanRequest, TableView}
import sparkpersist.scan.{PersistScanBuilder, RowIdentity}
import sparkpersist.shard.{ShardHandle, ShardState}

/**
 * One `DELETE`, `UPDATE` or `MERGE INTO` on a shard, delta-based: Spark reads the snapshot of
 * `state` (the shard's latest complete time when the statement was planned) with each row's
 * `_persist_row_id`, `_persist_row` and `_persist_row_source` ([[RowIdentity]]), works out which rows go and which come,
 * and hands them to [[RetractionWrite]], which commits them after that same state (and after
 * what others committed since, unless that conflicts with what its scans read). An update is
 * handed over as a delete and an insert: in a collection of updates that is what it is.
 *
 * `condition` is the filter Spark put directly above the scan of the target (the statement's
 * condition, or what of a MERGE's join condition reaches the target), set by the pruning rule
 * ([[sparkpersist.catalyst.PrunePersistParts]]): the scan decides its parts from it as every scan
 * does.
 */
final class PersistRowLevelOperation(val shard: ShardHandle, val state: ShardState, cmd: Command,
    val condition: Option[Expression] = None,
    /** The plan of its scan, made already for `condition` (by the whole-part `DELETE`, [[DeleteWholeParts]]). */
    val planned: Option[ScanPlan] = None,
    /** What its scans read (shared by the copies a rewrite of the condition makes): its write's rebase reads it. */
    reads: StatementReads = new StatementReads) extends SupportsDelta {

  /**
   * This operation, its scan filtered by `newCondition` (a rewrite of its condition: a plan made
   * already stays, as for a relation, [[sparkpersist.catalyst.PrunePersistParts]]).
   */
  def withCondition(newCondition: Option[Expression]): PersistRowLevelOperation =
    new PersistRowLevelOperation(shard, state, cmd, newCondition, planned, reads)

  /** The request of its scan: `state` as of its latest complete time, filtered by `condition`. */
  def request: ScanRequest = ScanRequest.latestOf(state, condition)

  /** This operation, its scan reading by `plan` (made for [[request]]). */
  def withPlan(plan: ScanPlan): PersistRowLevelOperation =
    new PersistRowLevelOperation(shard, state, cmd, condition, Some(plan), reads)

  override def command(): Command = cmd

  override def description(): String = s"sparkpersist $cmd on shard '${shard.name}' at upper ${state.upper}"

  /** The scan reads `state` as of its latest complete time: never an as-of a session configured. */
  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder =
    new PersistScanBuilder(shard, TableView.Snapshot, state.schema.dataSchema, request.copy(planned = planned), options,
      onPlan = reads.record)

  override def rowId(): Array[NamedReference] = Array(Expressions.column(RowIdentity.RowIdColumn))

  override def requiredMetadataAttributes(): Array[NamedReference] =
    Array(Expressions.column(RowIdentity.RowColumn), Expressions.column(RowIdentity.SourceColumn))

  override def representUpdateAsDeleteAndInsert(): Boolean = true

  override def newWriteBuilder(info: LogicalWriteInfo): DeltaWriteBuilder = new DeltaWriteBuilder {
    override def build(): DeltaWrite = new RetractionWrite(shard, state, cmd, info, reads)
  }
}
