package sparkpersist.interpret

import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.types.DataType

/**
 * The values of declared monotone functions the driver cannot evaluate itself (Python UDFs),
 * computed ahead of part pruning at the points pruning asks for. The interpreter reads it through
 * [[TabledNodes]]; a point the table does not hold, or at which the function raised, keeps parts.
 */
trait UdfTable {
  /**
   * Function `function` (lower-case name) with arguments of `argTypes` at the point `args`
   * (Catalyst values): `Some(Some(v))` its value (`v` may be null), `Some(None)` if it raised,
   * `None` if the table does not know.
   */
  def valueAt(function: String, argTypes: Seq[DataType], args: IndexedSeq[Any]): Option[Option[Any]]
}

object UdfTable {

  /** The points of one function asked for: its name (lower-case) and argument types. */
  final case class Function(name: String, argTypes: Seq[DataType])

  /** Knows no value: declared functions answer "anything". */
  val Empty: UdfTable = (_, _, _) => None

  /**
   * A table of values computed ahead: `values(function)(args)` is `Some(v)` for value `v`, `None`
   * if the function raised there.
   */
  final class Known(values: Map[Function, Map[IndexedSeq[Any], Option[Any]]]) extends UdfTable {
    def valueAt(function: String, argTypes: Seq[DataType], args: IndexedSeq[Any]): Option[Option[Any]] =
      values.get(Function(function, argTypes)).flatMap(_.get(args))
  }

  /**
   * Knows no value and records every point asked for: the first pass of a two-pass decision
   * (see `sparkpersist.plan.UdfProbes`). Thread-safe.
   */
  final class Recording extends UdfTable {
    private val asked = new ConcurrentHashMap[Function, java.util.Set[IndexedSeq[Any]]]()

    def valueAt(function: String, argTypes: Seq[DataType], args: IndexedSeq[Any]): Option[Option[Any]] = {
      asked.computeIfAbsent(Function(function, argTypes), _ => ConcurrentHashMap.newKeySet[IndexedSeq[Any]]())
        .add(args)
      None
    }

    /** The distinct points asked for, by function. */
    def points: Map[Function, Set[IndexedSeq[Any]]] =
      asked.asScala.map { case (f, points) => f -> points.asScala.toSet }.toMap
  }
}
