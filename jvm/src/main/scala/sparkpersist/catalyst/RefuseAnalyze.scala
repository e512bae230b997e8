package sparkpersist.catalyst

import org.apache.spark.sql.catalyst.analysis.ResolvedTable
import org.apache.spark.sql.catalyst.plans.logical.{AnalyzeColumn, AnalyzeTable, LogicalPlan}

import sparkpersist.catalog.PersistTable
import sparkpersist.errors.PersistErrors

/**
 * `ANALYZE TABLE` on a persist table is refused, saying why nothing needs computing: every scan
 * reports to the planner what it reads, from the parts' statistics as of its as-of and after
 * pruning (size in bytes, and the exact row count and column statistics where the state knows
 * them: `sparkpersist.scan.ScanStatistics`). Statistics stored by `ANALYZE` would be stale after
 * the next batch. Spark would refuse it too (`NOT_SUPPORTED_COMMAND_FOR_V2_TABLE`), without the reason.
 */
object RefuseAnalyze extends (LogicalPlan => Unit) {
  override def apply(plan: LogicalPlan): Unit = plan.foreach {
    case AnalyzeTable(ResolvedTable(_, _, t: PersistTable, _), _, _) => refuse(t)
    case AnalyzeColumn(ResolvedTable(_, _, t: PersistTable, _), _, _) => refuse(t)
    case _ =>
  }

  private def refuse(table: PersistTable): Nothing = throw PersistErrors.unsupported(
    s"ANALYZE TABLE ${table.name()}", "it is not needed: a persist table's statistics come from its parts. Every scan " +
      "reports the size of the parts it reads, after pruning, and their exact row count and column minimum, maximum " +
      "and null count where the shard's state knows them, as of the scan's time; statistics stored by ANALYZE would " +
      "be stale after the next batch. Run the query (EXPLAIN COST shows them) instead.")
}
