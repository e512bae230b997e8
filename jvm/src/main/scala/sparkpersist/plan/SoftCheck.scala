package sparkpersist.plan

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{And, Attribute, AttributeReference, BoundReference, Expression, Predicate, PredicateHelper, SubqueryExpression, Unevaluable}
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.LongAccumulator
import org.slf4j.LoggerFactory

import sparkpersist.PersistConf
import sparkpersist.errors.{PersistError, PersistThrowable}
import sparkpersist.read.PartFile

/**
 * Soft pushdown: the rows of a part the scan would have skipped are evaluated against the
 * filter on the executor; a row that passes it (or raises) is a violation: a part was
 * wrongly judged skippable. Likewise the rows of a part on which the filter was proven true: a
 * row that does not pass it (false, null, or raises) is a violation of the proof, checked
 * against `provenCondition` (the scan's own filter, without runtime filters). Violations are
 * counted (`violations`, and the scan's SQL metric),
 * logged once per part with the shard, the part and the predicate, and fail the task when
 * `failOnViolation` is set. Rows are passed on unchanged: soft mode returns every part's rows.
 *
 * Only the conjuncts that can run here are checked (deterministic, no subquery): the pruning
 * decision treats the others as "anything", so the checked ones alone must reject every row of
 * a part ruled out (and, as conjuncts of a condition proven true, pass every row of a part proven true).
 *
 * Only the checkable conjuncts, bound to `rowSchema`, travel to executors (never subquery plans).
 *
 * @param condition the filter, its attributes resolved by name against `rowSchema`
 */
final class SoftCheck(
    shard: String,
    condition: Expression,
    rowSchema: StructType,
    failOnViolation: Boolean,
    violations: LongAccumulator,
    provenCondition: Expression) extends Serializable {

  def this(shard: String, condition: Expression, rowSchema: StructType, failOnViolation: Boolean,
      violations: LongAccumulator) = this(shard, condition, rowSchema, failOnViolation, violations, condition)

  private val checked: Option[Expression] = SoftCheck.checkable(condition).map(SoftCheck.bind(_, rowSchema))
  private val checkedTrue: Option[Expression] = SoftCheck.checkable(provenCondition).map(SoftCheck.bind(_, rowSchema))
  private val conditionSql: String = condition.sql
  private val provenSql: String = provenCondition.sql

  /** The check as one reader (task) runs it, counting that reader's violations. */
  final class Run {
    private lazy val predicate = checked.map(Predicate.create(_))
    private lazy val predicateTrue = checkedTrue.map(Predicate.create(_))
    private var count = 0L

    /** Violations found by this reader so far (its `softViolations` task metric). */
    def violationCount: Long = count

    /**
     * `rows` of `file`, each checked against the filter on the way through: when `file.verify`,
     * none may pass it (or raise); when `file.provenTrue`, each must pass it (and not raise).
     */
    def apply(file: PartFile, rows: Iterator[InternalRow]): Iterator[InternalRow] =
      (if (file.verify) predicate else None) match {
        case Some(p) => checking(rows, row => try p.eval(row) catch { case NonFatal(_) => true }, report(file, _))
        case None => (if (file.provenTrue) predicateTrue else None) match {
          case Some(p) => checking(rows, row => try !p.eval(row) catch { case NonFatal(_) => true }, reportTrue(file, _))
          case None => rows
        }
      }

    /** `rows`, counting those `violates` and reporting the first with `report`. */
    private def checking(rows: Iterator[InternalRow], violates: InternalRow => Boolean,
        report: InternalRow => Unit): Iterator[InternalRow] = {
      var reported = false
      rows.map { row =>
        if (violates(row)) {
          count += 1
          violations.add(1)
          if (!reported) {
            reported = true
            report(row)
          }
        }
        row
      }
    }
  }

  private def report(file: PartFile, row: InternalRow): Unit =
    fail(s"Soft pushdown violation in shard '$shard': part ${file.path} was judged " +
      s"skippable, but a row passes (or raises on) the filter $conditionSql")

  private def reportTrue(file: PartFile, row: InternalRow): Unit =
    fail(s"Soft pushdown violation in shard '$shard': the filter $provenSql was proven true on every " +
      s"row of part ${file.path}, but a row does not pass it (false, null or an error)")

  private def fail(message: String): Unit = {
    SoftCheck.violationLog.warn(message)
    if (failOnViolation) throw new SoftPushdownViolation(message)
  }

}

object SoftCheck extends PredicateHelper {
  private val violationLog = LoggerFactory.getLogger(classOf[SoftCheck])

  /** The conjuncts of `condition` an executor can evaluate alone, and-ed; `None` if none. */
  private[plan] def checkable(condition: Expression): Option[Expression] = {
    // Attributes are Unevaluable too, but they get bound to the row: they do not count.
    def unevaluable(e: Expression): Boolean = e.isInstanceOf[Unevaluable] && !e.isInstanceOf[Attribute]
    val conjuncts = splitConjunctivePredicates(condition).filter { c =>
      c.deterministic && !SubqueryExpression.hasSubquery(c) && !c.exists(unevaluable)
    }
    conjuncts.reduceOption(And)
  }

  private def bind(expr: Expression, rowSchema: StructType): Expression = expr.transform {
    case a: AttributeReference =>
      val ordinal = rowSchema.fieldNames.indexOf(a.name)
      require(ordinal >= 0, s"soft check: column ${a.name} is not read by the scan")
      BoundReference(ordinal, a.dataType, a.nullable)
  }
}

/** Soft mode found a row in a part that pruning would have skipped, and failOnViolation is set. */
final class SoftPushdownViolation(violation: String) extends IllegalStateException with PersistThrowable {
  override def error: PersistError = PersistError("PERSIST_SOFT_PUSHDOWN_VIOLATION", "violation" -> violation,
    "pushdownMode" -> PersistConf.PushdownMode.key)
}
