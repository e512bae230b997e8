package sparkpersist.errors

import java.io.IOException

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.spark.SparkThrowable

/**
 * An exception of the project, as Spark's error framework sees one: its condition, SQLSTATE and
 * parameters are its [[PersistError]]'s, and its message is `[CONDITION] message SQLSTATE: xxxxx`.
 * Mix it into an exception class that keeps its own name (callers catch it) and define `error`
 * from the class's fields.
 */
trait PersistThrowable extends Throwable with SparkThrowable {
  def error: PersistError

  /**
   * The formatted message. Spark builds it wherever the error is reported (an executor's task
   * failure too), so a condition that does not format (a bug `ErrorConditionsSuite` looks for)
   * still reports the error: its condition and parameters, unformatted.
   */
  override def getMessage: String =
    try error.message
    catch {
      case NonFatal(e) => s"[${error.condition}] ${error.parameters.toSeq.sorted.map { case (k, v) => s"$k=$v" }
        .mkString(", ")} (its message cannot be formatted: ${e.getMessage})"
    }
  override def getCondition: String = error.condition
  override def getSqlState: String = error.sqlState
  override def getMessageParameters: java.util.Map[String, String] = error.parameters.asJava
}

/** Bad input: a name, an option, a value, a schema, a time. */
final class PersistInputException(val error: PersistError, cause: Throwable = null)
  extends IllegalArgumentException(cause) with PersistThrowable

/** An operation sparkpersist does not offer; the message says what to do instead. */
final class PersistUnsupportedException(val error: PersistError)
  extends UnsupportedOperationException with PersistThrowable

/** Something the request names does not exist. */
final class PersistNotFoundException(val error: PersistError)
  extends NoSuchElementException with PersistThrowable

/** The shard is not in the state the operation needs (it changed meanwhile); nothing was done. */
final class PersistStateException(val error: PersistError)
  extends IllegalStateException with PersistThrowable

/** A file of the shard that cannot be read as it is (a newer format, damage). */
final class PersistFileException(val error: PersistError) extends IOException with PersistThrowable
