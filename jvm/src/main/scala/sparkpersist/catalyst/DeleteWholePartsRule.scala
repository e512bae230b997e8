package sparkpersist.catalyst

import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, WriteDelta}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.write.RowLevelOperation.Command

import sparkpersist.dml.DeleteWholeParts
import sparkpersist.plan.PushdownMode

/**
 * Turns a `DELETE` on a shard whose condition decides every part (ruled out, or proven true on an
 * insert-only part) into [[DeleteWholeParts]]: a batch of whole-part negations, no row read or
 * written. Runs after [[PrunePersistParts]], which put the query's `mz_now()` into the condition.
 * Any other `DELETE` is left to the row-level rewrite.
 */
object DeleteWholePartsRule extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan match {
    case w: WriteDelta => w.table match {
      case OperationRelation(_, op) if op.command() == Command.DELETE =>
        DeleteWholeParts.plan(op.shard, op.state, w.condition, PushdownMode.of(conf)).getOrElse(w)
      case _ => w
    }
    case other => other
  }
}
