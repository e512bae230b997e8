package sparkpersist.parser

import org.apache.spark.sql.catalyst.parser.{ParameterContext, ParserInterface}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import sparkpersist.catalog.SystemProcedures
import sparkpersist.errors.PersistError
import sparkpersist.plan.TableView

/**
 * Spark's parser with the persist statements in front ([[PersistStatements]]), each rewritten into
 * SQL that Spark's parser reads:
 *
 *  - `DESCRIBE HISTORY t [LIMIT n]` is `SELECT * FROM t.history [LIMIT n]` (the shard's history
 *    table, [[sparkpersist.catalog.HistoryTable]], newest first, reading only the newest `n` versions);
 *  - `RESTORE TABLE c.s TO VERSION AS OF n` is `CALL c.system.restore('s', n, NULL)`, and
 *    `TIMESTAMP AS OF e` is `CALL c.system.restore('s', NULL, CAST((e) AS TIMESTAMP))` (by position:
 *    Spark 4.2 does not bind a named argument that is not a literal); a name of one part calls the
 *    current catalog's `system.restore`.
 *
 * Everything else, and every other method, is the delegate's ([[DelegatingParser]], per Spark line).
 */
final class PersistParser(delegate: ParserInterface) extends DelegatingParser(delegate) {

  override def parsePlan(sqlText: String): LogicalPlan =
    rewritten(sqlText).fold(delegate.parsePlan(sqlText))(delegate.parsePlan)

  override def parsePlanWithParameters(sqlText: String, context: ParameterContext): LogicalPlan =
    rewritten(sqlText).fold(delegate.parsePlanWithParameters(sqlText, context))(delegate.parsePlan)

  /** The SQL a persist statement is rewritten into, or None for any other statement. */
  def rewritten(sqlText: String): Option[String] = PersistStatements.parse(sqlText).map {
    case DescribeHistory(table, limit) =>
      s"SELECT * FROM ${PersistParser.quoted(table ++ TableView.History.suffix)}" + limit.fold("")(n => s" LIMIT $n")
    case RestoreToVersion(table, version) => PersistParser.restoreCall(table, s"${version}L, NULL")
    case RestoreToTimestamp(table, timestamp) =>
      delegate.parseExpression(timestamp) // fails here, naming the expression, if it is not one
      PersistParser.restoreCall(table, s"NULL, CAST(($timestamp) AS TIMESTAMP)")
  }
}

object PersistParser {
  def quoted(parts: Seq[String]): String = parts.map(p => "`" + p.replace("`", "``") + "`").mkString(".")

  private def restoreCall(table: Seq[String], target: String): String = {
    val (catalog, shard) = table match {
      case Seq(shard) => (Nil, shard)
      case Seq(catalog, shard) => (Seq(catalog), shard)
      case _ => throw PersistError("PERSIST_INVALID_STATEMENT", "statement" -> s"RESTORE ${quoted(table)}",
        "reason" -> (s"name a persist shard as <catalog>.<shard> (e.g. persist.events) or <shard> in the current " +
          s"catalog (${PersistStatements.RestoreUsage})")).invalidInput()
    }
    val procedure = quoted(catalog ++ Seq(SystemProcedures.Namespace, "restore"))
    s"CALL $procedure('${shard.replace("\\", "\\\\").replace("'", "\\'")}', $target)"
  }
}
