package sparkpersist.isolation

import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._

import sparkpersist.plan.{PartSelection, ScanPlan}
import sparkpersist.shard.ShardState

/**
 * What one statement read of its shard: the plans of its scans of the shard (recorded as each is
 * made; a statement may scan its target more than once). A statement whose scans recorded no
 * plan is taken to have read every part.
 */
final class StatementReads {
  private val plans = new ConcurrentLinkedQueue[ScanPlan]

  def record(plan: ScanPlan): Unit = plans.add(plan)

  /**
   * The keys of the files whose rows the statement may retract: those of the parts visible in
   * `state` (the state it read) that no scan's filter rules out.
   */
  def files(state: ShardState): Set[String] = {
    val recorded = plans.asScala.toSeq
    if (recorded.isEmpty) state.parts.map(_.fileKey).toSet
    else recorded.iterator.flatMap { plan =>
      plan.candidates.indices.iterator.filterNot(plan.decisions.ruledOut.get).map(plan.candidates(_).fileKey)
    }.toSet
  }

  /** The selections of its scans: a part they all rule out holds no row the statement's condition matches. */
  def selections: Seq[PartSelection] = {
    val recorded = plans.asScala.toSeq
    if (recorded.isEmpty) Seq(PartSelection.All) else recorded.map(_.selection)
  }
}

object StatementReads {
  /** The reads of a statement that read every part of the state it read (an overwrite). */
  def everything: StatementReads = new StatementReads
}
