package sparkpersist.errors

/**
 * One error of the project: a condition of [[ErrorConditions]] and the values of its template's
 * parameters. Throw it as the exception its call site's callers expect:
 * `throw PersistError("PERSIST_INVALID_OPTION", "context" -> ..., "reason" -> ...).invalidInput()`,
 * or mix [[PersistThrowable]] into an exception class of its own.
 */
final case class PersistError(condition: String, parameters: Map[String, String]) {
  /** `[CONDITION] message SQLSTATE: xxxxx`. */
  def message: String = ErrorConditions.message(condition, parameters)

  def sqlState: String = ErrorConditions.sqlState(condition)

  /** Bad input (a name, an option, a value, a schema): an `IllegalArgumentException`. */
  def invalidInput(cause: Throwable = null): PersistInputException = new PersistInputException(this, cause)

  /** An operation sparkpersist does not offer: an `UnsupportedOperationException`. */
  def unsupported: PersistUnsupportedException = new PersistUnsupportedException(this)

  /** Something named that does not exist (a batch, a procedure): a `NoSuchElementException`. */
  def notFound: PersistNotFoundException = new PersistNotFoundException(this)

  /** The shard is not in a state that allows the operation (it changed meanwhile): an `IllegalStateException`. */
  def illegalState: PersistStateException = new PersistStateException(this)

  /** A file of the shard that cannot be read as it is: an `IOException`. */
  def unreadableFile: PersistFileException = new PersistFileException(this)
}

object PersistError {
  /** The error of `condition` with its parameters as `name -> value` pairs (values by `String.valueOf`). */
  def apply(condition: String, parameters: (String, Any)*): PersistError =
    PersistError(condition, parameters.map { case (k, v) => k -> String.valueOf(v) }.toMap)
}
