package sparkpersist.catalyst

import org.apache.spark.SPARK_DOC_ROOT
import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import sparkpersist.interpret.MzNow

/** The SQL function `mz_now()`, as registered by [[sparkpersist.PersistExtensions]]. */
object MzNowFunction {
  val name = "mz_now"

  val info: ExpressionInfo = new ExpressionInfo(
    classOf[MzNow].getName, null, name,
    "_FUNC_() - The time the query reads persist shards as of (their as-of), as a TIMESTAMP.",
    "", // arguments
    // Spark checks the layout of these two: a leading newline and 4 spaces, a trailing newline and 2.
    "\n    Examples:\n      > SELECT * FROM persist.events WHERE mz_now() <= event_ts + INTERVAL 30 DAYS;\n  ",
    "\n    The time is spark.sparkpersist.asOf when set, else the latest time complete in the persist " +
      "shards the query reads (the largest upper - 1; with spark.sparkpersist.read.consistency=consistent, " +
      "the smallest). One value per query: pruning and row filtering use the same.\n  ",
    "datetime_funcs", "0.1.0", "", "scala_udf")

  def build(args: Seq[Expression]): Expression = {
    if (args.nonEmpty) {
      // Spark's own condition for a call with the wrong number of arguments, as its built-in functions raise.
      throw new AnalysisException("WRONG_NUM_ARGS.WITHOUT_SUGGESTION", Map("functionName" -> s"`$name`",
        "expectedNum" -> "0", "actualNum" -> args.length.toString, "docroot" -> SPARK_DOC_ROOT))
    }
    MzNow()
  }

  val description: (FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression) =
    (FunctionIdentifier(name), info, build)
}
