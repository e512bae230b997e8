package sparkpersist.errors

import org.apache.spark.ErrorClassesJsonReader

/**
 * The project's error conditions, [[ErrorConditions.Resource]] in the shape of Spark's
 * `error-conditions.json` (a message template with `<param>`s and a SQLSTATE per condition,
 * optional sub-conditions), read through Spark's own reader.
 */
object ErrorConditions {
  /** The resource every condition is declared in, once. */
  val Resource = "error/sparkpersist-error-conditions.json"

  private lazy val reader = new ErrorClassesJsonReader(Seq(
    Option(getClass.getClassLoader.getResource(Resource))
      .getOrElse(throw new IllegalStateException(s"$Resource is missing from sparkpersist's jar"))))

  /**
   * The message of `condition` (`MAIN` or `MAIN.SUB`) with `parameters` filled in, formatted as
   * Spark formats its own: `[CONDITION] message SQLSTATE: xxxxx`. Every parameter of the template
   * must be given (Spark's reader fails on a missing one).
   */
  def message(condition: String, parameters: Map[String, String]): String =
    s"[$condition] ${reader.getErrorMessage(condition, parameters)} SQLSTATE: ${sqlState(condition)}"

  /** The SQLSTATE of `condition` (a sub-condition has its main condition's). */
  def sqlState(condition: String): String = reader.getSqlState(condition)

  /** The parameters the template of `condition` names. */
  def parameters(condition: String): Seq[String] = reader.getMessageParameters(condition)
}
