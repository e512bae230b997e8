package sparkpersist.plan

import org.apache.spark.sql.classic.SparkSession

import sparkpersist.PersistConf
import sparkpersist.interpret.PartDecision
import sparkpersist.positional.PositionalSnapshot
import sparkpersist.read.PartFileReader
import sparkpersist.shard.{PartMeta, ShardHandle, ShardState}

/**
 * What one read of a shard reads, computed once from the state and the request, on the driver:
 *  - the as-of ([[AsOf]]) and the parts visible as of it (from `from` on, pairs of a negation and
 *    the part it negates left out of a snapshot: [[ScanPlan.withoutCancelled]]), run after run;
 *  - the decision of each of them ([[PartDecisions]], by the filter of `selection`), made here and
 *    nowhere else: the DSv2 scan, the whole-part `DELETE`, aggregates from statistics and each
 *    streaming micro-batch read it off the plan instead of deciding again;
 *  - the positions a snapshot leaves out ([[PositionalSnapshot]]) and the [[ReadMode]].
 * The parts answered from their statistics (`answered`, [[answering]]) stay decided but are not
 * read. The scan ([[sparkpersist.scan.PersistScan]]) turns the plan into tasks.
 */
final class ScanPlan private (
    spark: SparkSession,
    val shard: ShardHandle,
    val state: ShardState,
    val view: TableView,
    /** The as-of of this read; `None` when the shard holds no complete time yet. */
    val asOf: Option[Long],
    val selection: PartSelection,
    /**
     * The earliest time read: a read of the updates with `from <= time <= asOf` (a micro-batch of
     * a streaming read). A snapshot view then reads inserts only: its parts must hold no retraction.
     */
    val from: Long,
    /** The plan this one answers parts of: its candidates' decisions and positions are this one's too. */
    answers: Option[ScanPlan],
    /** The keys of the parts whose share of the query was answered from their statistics: not read. */
    val answered: Set[String]) {

  /** The visible parts, run after run. */
  val visible: IndexedSeq[IndexedSeq[PartMeta]] = answers.fold(asOf match {
    case None => IndexedSeq.empty[IndexedSeq[PartMeta]]
    case Some(t) => ScanPlan.withoutCancelled(view, from, state.batches.flatMap(_.runs)
      .map(_.parts.filter(p => p.minTime <= t && p.maxTime >= from)))
  })(_.visible)

  /** The visible parts, in run order: what the filter decides, by position. */
  val candidates: IndexedSeq[PartMeta] = answers.fold(visible.flatten)(_.candidates)

  /** The decision of every candidate, by position: made when the plan is, once. */
  val decisions: PartDecisions = answers.fold(
    selection.decideAmong(candidates, PersistConf.ParallelDecisionParts.get(spark.sessionState.conf)))(_.decisions)

  /** The decision of the candidate at position `i`. */
  def decision(i: Int): PartDecision = decisions(i)

  /** This plan with the parts of `keys` answered from their statistics, its decisions and positions shared. */
  def answering(keys: Set[String]): ScanPlan =
    new ScanPlan(spark, shard, state, view, asOf, selection, from, Some(this), answered ++ keys)

  /** The positions of the candidates answered from their statistics. */
  lazy val answeredPositions: java.util.BitSet = {
    val out = new java.util.BitSet(candidates.size)
    if (answered.nonEmpty) candidates.indices.foreach(i => if (answered(candidates(i).key)) out.set(i))
    out
  }

  /** The positions of the candidates the scan's own filter leaves unread: ruled out in mode `on`, and answered. */
  lazy val skipped: java.util.BitSet = {
    val out = answeredPositions.clone().asInstanceOf[java.util.BitSet]
    if (selection.mode == PushdownMode.On) out.or(decisions.ruledOut)
    out
  }

  /**
   * The positions a snapshot read leaves out ([[PositionalSnapshot]]), when every retraction
   * visible was written with the position of the row it retracts ([[PersistConf.PositionalReads]]).
   */
  lazy val positional: Option[PositionalSnapshot] = answers.fold(positionalOfCandidates)(_.positional)

  private def positionalOfCandidates: Option[PositionalSnapshot] =
    if (view != TableView.Snapshot || from != Long.MinValue || !PersistConf.PositionalReads.get(spark.sessionState.conf) ||
      !readsPositions) None
    else PositionalSnapshot.of(shard, candidates)

  /** Whether a reader of this plan could read rows' positions ([[PartFileReader.readsPositions]]). */
  lazy val readsPositions: Boolean = answers.fold(PartFileReader.readsPositions(spark, state.schema))(_.readsPositions)

  /** Read mode, fixed by the parts the plan's own filter keeps (a runtime filter keeps a subset of them). */
  lazy val mode: ReadMode = view match {
    case TableView.Updates => ReadMode.Updates
    case _ if positional.isEmpty && candidates.indices.exists(i => !skipped.get(i) && candidates(i).hasRetractions) =>
      require(from == Long.MinValue, s"a snapshot of shard '${shard.name}' from time $from on holds retractions")
      ReadMode.ConsolidatedSnapshot
    case _ => ReadMode.Snapshot
  }
}

object ScanPlan {

  /**
   * The plan of a batch read of `shard`'s `view` for `request`: the state it fixes (else the
   * shard's current one), its as-of (else the session's, [[AsOf.resolve]]), and its filter
   * decided per the session's [[PushdownMode]].
   */
  def of(spark: SparkSession, shard: ShardHandle, view: TableView, request: ScanRequest): ScanPlan = {
    val conf = spark.sessionState.conf
    val state = request.state.getOrElse(shard.state)
    val asOf = request.asOf.map(AsOf.check(state, _)).orElse(AsOf.resolve(state, conf))
    val selection = (request.condition, asOf, PushdownMode.of(conf)) match {
      case (Some(condition), Some(t), mode) if mode != PushdownMode.Off => PartPruning.select(condition, state.schema, t, mode)
      case _ => PartSelection.All
    }
    apply(spark, shard, state, view, asOf, selection)
  }

  /** The plan of a read of `state` as of `asOf` from `from` on, by `selection`. */
  def apply(spark: SparkSession, shard: ShardHandle, state: ShardState, view: TableView, asOf: Option[Long],
      selection: PartSelection, from: Long = Long.MinValue): ScanPlan =
    new ScanPlan(spark, shard, state, view, asOf, selection, from, None, Set.empty)

  /**
   * `runs` without the parts a visible negation cancels: a negated part ([[PartMeta.negated]]) and
   * the part whose file it negates, both visible, sum to nothing, row by row, so a snapshot read
   * (from the beginning) leaves both out, and the rest of the shard is read as if the deleted
   * parts had never been written (straight, without consolidation, when nothing else retracts).
   * The updates view shows them.
   */
  def withoutCancelled(view: TableView, from: Long,
      runs: IndexedSeq[IndexedSeq[PartMeta]]): IndexedSeq[IndexedSeq[PartMeta]] =
    if (view != TableView.Snapshot || from != Long.MinValue) runs
    else {
      val negated = runs.iterator.flatten.filter(_.negated).map(_.fileKey).toSet
      if (negated.isEmpty) runs
      else {
        val cancelled = runs.iterator.flatten.filter(p => !p.negated && negated(p.key)).map(_.key).toSet
        runs.map(_.filterNot(p => cancelled(p.fileKey)))
      }
    }
}
