package sparkpersist.source

import java.io.IOException
import java.nio.channels.ClosedByInterruptException

import scala.util.control.NonFatal

import org.apache.spark.TaskKilledException

/**
 * A part file the shard's state refers to could not be read: it is missing, cut short or
 * damaged. Parts are written once under unique names and never changed (garbage collection
 * deletes only parts no live state version refers to), so the file was removed or damaged
 * outside sparkpersist. The scan fails rather than return the rows of the other parts.
 */
final class UnreadablePart(val path: String, cause: Throwable) extends IOException(
  s"Part file $path cannot be read (${cause.getClass.getSimpleName}: ${cause.getMessage}). The shard's " +
    "state refers to it, and parts are never changed after they are written, so it was removed or damaged " +
    "outside sparkpersist: restore it from a backup of the shard directory. Until then every query that " +
    "reads this part fails (none answers without its rows).", cause)

private[source] object UnreadablePart {

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
