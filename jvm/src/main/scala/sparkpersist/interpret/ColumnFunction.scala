package sparkpersist.interpret

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, Expression, Literal, RuntimeReplaceable}
import org.apache.spark.sql.types._

/**
 * A function of one column that the interpreter maps ranges through by their endpoints
 * (`MonotoneCall`): a [[Monotonicity]] entry non-decreasing in the column, every other argument
 * a constant, from and to integral or temporal values (`ts + INTERVAL 30 DAYS`, `id * 1000`,
 * `unix_millis(ts)`), without zone slack. Being monotone, `f(x) >= v` holds from some `x` on: a
 * comparison of `f(x)` with a constant is a comparison of `x` with that point ([[reaches]]),
 * found by bisection once per filter, as is the range `okFrom..okTo` outside which `f` raises
 * (it raises only at the tails) and is evaluated as the interpreter evaluates it (its checked
 * twin). [[VectorFilter]] then decides `f(column) op constant` at the cost of `column op
 * constant`, as the interpreter would on the same bounds.
 */
final class ColumnFunction private (
    template: Expression,
    argType: DataType,
    /** The least and greatest arguments at which `f` does not raise. */
    val okFrom: Long,
    val okTo: Long,
    /** Whether `f` may raise where its range's endpoints do (else it only loses its bounds). */
    val failureFails: Boolean,
    /** Whether `f` may raise over a column without bounds. */
    val unboundedFails: Boolean) {

  /** The least argument in `okFrom..okTo` where `f` reaches `v` (passes it, if `strictly`). */
  def reaches(v: Long, strictly: Boolean): ColumnFunction.Threshold = {
    def past(x: Long): Boolean = { val y = at(x).get; if (strictly) y > v else y >= v }
    if (past(okFrom)) new ColumnFunction.Threshold(okFrom, never = false)
    else if (!past(okTo)) new ColumnFunction.Threshold(okTo, never = true)
    else new ColumnFunction.Threshold(ColumnFunction.bisect(okFrom, okTo, past), never = false)
  }

  private def at(x: Long): Option[Long] = ColumnFunction.evaluate(template, argType, x)
}

object ColumnFunction {

  /** Where `f` reaches a value: arguments below `at` do not, those from it on do (none if `never`). */
  final class Threshold(at: Long, never: Boolean) {
    /** Whether `f(x)` is below the value. */
    def below(x: Long): Boolean = never || x < at
  }

  /** The column `e` is a function of, and that function, if `e` is one of those this class describes. */
  def of(e: Expression): Option[(Attribute, ColumnFunction)] = {
    val columns = e.children.zipWithIndex.collect { case (a: Attribute, i) => (a, i) }
    val constants = e.children.filterNot(_.isInstanceOf[Attribute]).map(c => Interpreter.constant(c).flatten)
    for {
      (a, i) <- columns.headOption if columns.size == 1 && e.deterministic && constants.forall(_.isDefined) &&
        !e.isInstanceOf[RuntimeReplaceable] && argument(a.dataType) && result(e.dataType)
      entry <- Monotonicity.lookup(e) if entry.directions(i) == Direction.Up
      if !(entry.zoneDependent && Monotonicity.needsZoneSlack(e))
      function <- build(e, a, i, entry)
    } yield a -> function
  }

  private def build(e: Expression, a: Attribute, i: Int, entry: Monotone): Option[ColumnFunction] = {
    val rebound = e.withNewChildren(e.children.zipWithIndex.map { case (c, j) =>
      if (j == i) BoundReference(0, a.dataType, nullable = false)
      else Literal.create(Interpreter.constant(c).flatten.get, c.dataType)
    })
    val checked = Monotonicity.lookup(rebound).flatMap(_.checked)
    val template = checked.getOrElse(rebound)
    val raises = entry.raises != Raises.Never
    val (min, max) = if (a.dataType == IntegerType) (Int.MinValue.toLong, Int.MaxValue.toLong) else (Long.MinValue, Long.MaxValue)
    def ok(x: Long): Boolean = evaluate(template, a.dataType, x).isDefined
    if (template.nullable || !ok(0L)) None
    else {
      // Raising only at the tails: the arguments where f is defined are one range around 0.
      val from = if (ok(min)) min else bisect(min, 0L, ok)
      val to = if (ok(max)) max else bisect(0L, max, x => !ok(x)) - 1
      Some(new ColumnFunction(template, a.dataType, from, to,
        failureFails = checked.isEmpty || raises, unboundedFails = raises))
    }
  }

  /** `template` (of one argument, of type `argType`) at `x`, as a key; None if it raises or is null. */
  private def evaluate(template: Expression, argType: DataType, x: Long): Option[Long] =
    try {
      val arg: Any = if (argType == IntegerType) x.toInt else x
      template.eval(InternalRow(arg)) match {
        case i: Int => Some(i.toLong)
        case l: Long => Some(l)
        case b: Byte => Some(b.toLong)
        case s: Short => Some(s.toLong)
        case _ => None
      }
    } catch {
      case NonFatal(_) => None
    }

  /**
   * Argument types whose every value is in the interpreter's domain of monotone functions
   * (dates are not: far ones leave it), with results compared as keys.
   */
  private def argument(dt: DataType): Boolean = dt match {
    case IntegerType | LongType | TimestampType | TimestampNTZType => true
    case _ => false
  }

  /** Result types whose keys are their values: integers, dates and timestamps. */
  private def result(dt: DataType): Boolean = dt match {
    case ByteType | ShortType | IntegerType | LongType | DateType | TimestampType | TimestampNTZType => true
    case _ => false
  }

  /**
   * The least `x` in `lo..hi` where `holds`, given that it does not hold at `lo`, holds at `hi`,
   * and holds from some point on.
   */
  private def bisect(lo: Long, hi: Long, holds: Long => Boolean): Long = {
    var (l, h) = (lo, hi)
    while (l < h - 1) {
      val mid = (l >> 1) + (h >> 1) + (l & h & 1)
      if (holds(mid)) h = mid else l = mid
    }
    h
  }
}
