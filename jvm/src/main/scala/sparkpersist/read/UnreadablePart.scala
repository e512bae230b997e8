package sparkpersist.read

import java.io.IOException
import java.nio.channels.ClosedByInterruptException

import scala.util.control.NonFatal

import org.apache.spark.TaskKilledException

import sparkpersist.errors.{PersistError, PersistThrowable}

/**
 * A part file the shard's state refers to could not be read: it is missing, cut short or
 * damaged. Parts are written once under unique names and never changed (garbage collection
 * deletes only parts no live state version refers to), so the file was removed or damaged
 * outside sparkpersist, or written by a version that stored a null inside a column level
 * declared NOT NULL (the values of such a part are lost: [[sparkpersist.schema.NestedNullability]]).
 * The scan fails rather than return the rows of the other parts; the message names the shard and
 * the batch that wrote the part, and the call that removes that batch on purpose.
 */
final class UnreadablePart(val path: String, cause: Throwable) extends IOException(cause) with PersistThrowable {
  override def error: PersistError = PersistError("PERSIST_UNREADABLE_PART", "path" -> path,
    "cause" -> s"${cause.getClass.getSimpleName}: ${cause.getMessage}", "removal" -> UnreadablePart.removal(path))
}

private[read] object UnreadablePart {

  /**
   * How to remove the batch holding the part at `path` (`<root>/<shard>/parts/<batch>/<file>`, as
   * writers lay parts out) when no backup exists.
   */
  private def removal(path: String): String =
    scala.util.Try(new org.apache.hadoop.fs.Path(path)).toOption
      .filter(p => p.getParent != null && p.getParent.getParent != null && p.getParent.getParent.getName == "parts" &&
        p.getParent.getParent.getParent != null)
      .fold("") { p =>
        val shard = p.getParent.getParent.getParent.getName
        s" It was written by batch ${p.getParent.getName} of shard '$shard'. Without a backup (or if an older " +
          "sparkpersist wrote a null inside an array, map or struct level declared NOT NULL, whose values cannot " +
          s"be recovered), CALL persist.system.drop_batch('$shard', '$path') (Python: sparkpersist.drop_batch) " +
          "removes the batch holding it, its rows at every time, and the rest of the shard reads again."
      }

  /** Runs `open`, and reads what it returns, turning a failure to read `path` into [[UnreadablePart]]. */
  def guard[T <: AnyRef](path: String)(open: => Iterator[T]): Iterator[T] = {
    val opened = rethrowing(path)(open)
    new Iterator[T] {
      override def hasNext: Boolean = rethrowing(path)(opened.hasNext)
      override def next(): T = rethrowing(path)(opened.next())
    }
  }

  private def rethrowing[R](path: String)(body: => R): R =
    try body
    catch {
      case e @ (_: InterruptedException | _: ClosedByInterruptException | _: TaskKilledException | _: UnreadablePart |
          _: UnsupportedPartFormat) => throw e
      case NonFatal(e) => throw new UnreadablePart(path, e)
    }
}
