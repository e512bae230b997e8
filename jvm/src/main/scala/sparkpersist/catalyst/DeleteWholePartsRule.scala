package sparkpersist.catalyst

import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, WriteDelta}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.sparkpersist.RowLevelOperationTables

import sparkpersist.dml.DeleteWholeParts
import sparkpersist.plan.{PushdownMode, ScanPlan, TableView}

/**
 * Turns a `DELETE` on a shard whose condition decides every part (ruled out, or proven true on an
 * insert-only part) into [[DeleteWholeParts]]: a batch of whole-part negations, no row read or
 * written. Runs after [[PrunePersistParts]], which put the query's `mz_now()` into the condition
 * and handed the filter directly above the target's scan to the operation: the parts are decided
 * by that filter (the rows the statement deletes are those it passes), once, in the plan of the
 * target's scan ([[ScanPlan]]). Any other `DELETE` is left to the row-level rewrite, its scan
 * reading by the same plan.
 */
object DeleteWholePartsRule extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan match {
    case w: WriteDelta if PushdownMode.of(conf) == PushdownMode.On => w.table match {
      case OperationRelation(_, op) if op.command() == Command.DELETE =>
        w.query.collectFirst { case OperationRelation(read, target) => (read, target) } match {
          case Some((read, target)) if target.condition.isDefined && target.planned.isEmpty =>
            val scanPlan = ScanPlan.of(SparkSession.active, target.shard, TableView.Snapshot, target.request)
            DeleteWholeParts.of(scanPlan).getOrElse {
              val planned = RowLevelOperationTables.withOperation(read.table, target.withPlan(scanPlan))
              w.copy(query = w.query.transformDown { case r if r eq read => read.copy(table = planned) })
            }
          case _ => w
        }
      case _ => w
    }
    case other => other
  }
}
