package sparkpersist.interpret

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.QueryPlanningTracker
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression}
import org.apache.spark.sql.catalyst.optimizer.ReplaceExpressions
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LocalRelation}
import org.apache.spark.sql.internal.SQLConf


/**
 * SQL predicates analyzed the way the pruning rule sees them: parsed against a relation of
 * `columns` (plus `mz`, which stands for `mz_now()`), analyzed under the given ANSI mode and
 * time zone, runtime-replaceable expressions replaced.
 */
final class Analyzed(spark: SparkSession, val columns: Seq[AttributeReference]) {
  val mz: AttributeReference = AttributeReference("mz", org.apache.spark.sql.types.TimestampType,
    nullable = false)()
  private val relation = LocalRelation(columns :+ mz)

  /** The analyzed condition, with `mz` still an attribute; throws if `sql` does not analyze. */
  def apply(sql: String, ansi: Boolean, zone: String = "UTC"): Expression = {
    spark.conf.set(SQLConf.ANSI_ENABLED.key, ansi.toString)
    spark.conf.set(SQLConf.SESSION_LOCAL_TIMEZONE.key, zone)
    SQLConf.withExistingConf(spark.sessionState.conf) {
      val parsed = spark.sessionState.sqlParser.parseExpression(sql)
      val plan = spark.sessionState.analyzer.executeAndCheck(Filter(parsed, relation),
        new QueryPlanningTracker)
      ReplaceExpressions(plan).asInstanceOf[Filter].condition
    }
  }

  /** `e` with `mz` replaced by `mz_now()`. */
  def withMzNow(e: Expression): Expression =
    e.transform { case a: AttributeReference if a.exprId == mz.exprId => MzNow() }
}
