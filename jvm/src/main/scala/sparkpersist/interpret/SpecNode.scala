package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow}
import org.apache.spark.sql.types.DataType

import sparkpersist.interpret.Values._

/**
 * A compiled expression: computes the [[ResultSpec]] of the expression from the specs of the
 * columns it reads (indexed by slot). Built once per filter by [[Interpreter.compile]], then
 * evaluated once per part, so evaluation does no pattern matching over Catalyst trees.
 */
abstract class SpecNode {
  def eval(columns: Array[ResultSpec]): ResultSpec
}

private[interpret] object SpecNode {

  final class Const(spec: ResultSpec) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = spec
  }

  final class Column(slot: Int) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = columns(slot)
  }

  final class And(left: SpecNode, right: SpecNode) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val l = left.eval(columns)
      val r = right.eval(columns)
      ResultSpec.bool(
        mayBeFalse = l.mayBeFalse || r.mayBeFalse,
        mayBeTrue = l.mayBeTrue && r.mayBeTrue,
        nullable = (l.nullable && (r.mayBeTrue || r.nullable)) || (r.nullable && l.mayBeTrue),
        fallible = l.fallible || r.fallible)
    }
  }

  final class Or(left: SpecNode, right: SpecNode) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val l = left.eval(columns)
      val r = right.eval(columns)
      ResultSpec.bool(
        mayBeFalse = l.mayBeFalse && r.mayBeFalse,
        mayBeTrue = l.mayBeTrue || r.mayBeTrue,
        nullable = (l.nullable && (r.mayBeFalse || r.nullable)) || (r.nullable && l.mayBeFalse),
        fallible = l.fallible || r.fallible)
    }
  }

  final class Not(child: SpecNode) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val c = child.eval(columns)
      ResultSpec.bool(c.mayBeTrue, c.mayBeFalse, c.nullable, c.fallible)
    }
  }

  /** `IS NULL` (or `IS NOT NULL` when `negated`): never null. */
  final class IsNull(child: SpecNode, negated: Boolean) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val c = child.eval(columns)
      val (t, f) = if (negated) (c.hasValues, c.nullable) else (c.nullable, c.hasValues)
      ResultSpec.bool(mayBeFalse = f, mayBeTrue = t, nullable = false, fallible = c.fallible)
    }
  }

  /** `try_*` and `TRY(...)`: an error becomes null. */
  final class Try(child: SpecNode) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val c = child.eval(columns)
      ResultSpec(c.nullable || c.fallible, fallible = false, c.values)
    }
  }

  sealed trait Comparison
  object Comparison {
    case object Eq extends Comparison
    case object Lt extends Comparison
    case object LtEq extends Comparison
  }

  /** `=`, `<`, `<=` (`>` and `>=` are compiled with swapped sides); null if either side is. */
  final class Compare(op: Comparison, left: SpecNode, right: SpecNode, ord: Ordering[Any])
      extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val l = left.eval(columns)
      val r = right.eval(columns)
      val nullable = l.nullable || r.nullable
      val fallible = l.fallible || r.fallible
      (l.values, r.values) match {
        case (Within(l1, h1), Within(l2, h2)) =>
          val (f, t) = op match {
            case Comparison.Eq => Compare.overlap(l.values, r.values, ord)
            case Comparison.Lt => (ord.gteq(h1, l2), ord.lt(l1, h2))
            case Comparison.LtEq => (ord.gt(h1, l2), ord.lteq(l1, h2))
          }
          ResultSpec.bool(f, t, nullable, fallible)
        case (Empty, _) | (_, Empty) => ResultSpec.bool(false, false, nullable, fallible)
        case _ => ResultSpec.bool(true, true, nullable, fallible)
      }
    }
  }

  /** `<=>`: never null; null equals null. */
  final class EqualNullSafe(left: SpecNode, right: SpecNode, ord: Ordering[Any]) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val l = left.eval(columns)
      val r = right.eval(columns)
      val both = Compare.overlap(l.values, r.values, ord)
      ResultSpec.bool(
        mayBeFalse = (l.nullable && r.hasValues) || (r.nullable && l.hasValues) || both._1,
        mayBeTrue = (l.nullable && r.nullable) || both._2,
        nullable = false,
        fallible = l.fallible || r.fallible)
    }
  }

  object Compare {
    /** For two non-null values from `a` and `b`: (may they differ, may they be equal). */
    def overlap(a: Values, b: Values, ord: Ordering[Any]): (Boolean, Boolean) = (a, b) match {
      case (Within(l1, h1), Within(l2, h2)) =>
        (!(ord.equiv(l1, h1) && ord.equiv(l2, h2) && ord.equiv(l1, l2)),
          ord.lteq(l1, h2) && ord.lteq(l2, h1))
      case (Empty, _) | (_, Empty) => (false, false)
      case _ => (true, true)
    }
  }

  /** `v IN (e1, e2, ...)`: true on a match, else null if `v` or some item is null, else false. */
  final class In(value: SpecNode, items: Array[SpecNode], ord: Ordering[Any]) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val v = value.eval(columns)
      var fallible = v.fallible
      var nullable = v.nullable
      var mayMatch = false
      var mustMatch = false
      var i = 0
      while (i < items.length) {
        val item = items(i).eval(columns)
        fallible ||= item.fallible
        nullable ||= item.nullable
        val (differ, equal) = Compare.overlap(v.values, item.values, ord)
        mayMatch ||= equal
        mustMatch ||= equal && !differ && !item.nullable
        i += 1
      }
      if (!v.hasValues) ResultSpec.bool(false, false, nullable, fallible)
      else ResultSpec.bool(!mustMatch, mayMatch, nullable, fallible)
    }
  }

  /**
   * `v IN (constants)` as Spark optimizes large lists (`InSet`): `sorted` holds the non-null
   * constants in `ord` order, so a range is checked with one binary search. For floats, whose
   * set membership uses Java equality rather than the SQL ordering, `false` is always assumed
   * possible.
   */
  final class InSet(value: SpecNode, sorted: Array[Any], hasNull: Boolean, floating: Boolean,
      ord: Ordering[Any]) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val v = value.eval(columns)
      val nullable = v.nullable || hasNull
      v.values match {
        case Empty => ResultSpec.bool(false, false, nullable, v.fallible)
        case Within(lo, hi) =>
          val i = firstAtLeast(lo)
          val mayMatch = i < sorted.length && ord.lteq(sorted(i), hi)
          val mustMatch = !floating && mayMatch && ord.equiv(lo, hi)
          ResultSpec.bool(!mustMatch, mayMatch, nullable, v.fallible)
        case _ => ResultSpec.bool(true, sorted.nonEmpty, nullable, v.fallible)
      }
    }

    private def firstAtLeast(x: Any): Int = {
      var lo = 0
      var hi = sorted.length
      while (lo < hi) {
        val mid = (lo + hi) >>> 1
        if (ord.lt(sorted(mid), x)) lo = mid + 1 else hi = mid
      }
      lo
    }
  }

  /** `COALESCE`: later arguments are only evaluated while the earlier ones may be null. */
  final class Coalesce(children: Array[SpecNode], ord: Ordering[Any]) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      var values: Values = Empty
      var nullable = true
      var fallible = false
      var i = 0
      while (i < children.length && nullable) {
        val c = children(i).eval(columns)
        values = Values.union(values, c.values, ord)
        nullable = c.nullable
        fallible ||= c.fallible
        i += 1
      }
      ResultSpec(nullable, fallible, values)
    }
  }

  /**
   * `CASE WHEN c1 THEN v1 ... ELSE e END` (and `IF`): a branch is reachable while every earlier
   * condition may be false or null, and taken if its condition may be true.
   */
  final class CaseWhen(conditions: Array[SpecNode], branches: Array[SpecNode],
      otherwise: Option[SpecNode], ord: Ordering[Any]) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      var result = ResultSpec(nullable = false, fallible = false, Empty)
      var reachable = true
      var i = 0
      while (i < conditions.length && reachable) {
        val c = conditions(i).eval(columns)
        if (c.fallible) result = result.orFail
        if (c.mayBeTrue) result = result.union(branches(i).eval(columns), ord)
        reachable = c.mayBeFalse || c.nullable
        i += 1
      }
      if (!reachable) result
      else otherwise match {
        case Some(e) => result.union(e.eval(columns), ord)
        case None => result.orNull
      }
    }
  }

  /**
   * `GREATEST` (or `LEAST` when `least`): the extreme of the non-null arguments, null only if all
   * are null. The result is at least the smallest lower bound, and at least the lower bound of
   * every argument that is never null.
   */
  final class Extremum(children: Array[SpecNode], least: Boolean, ord0: Ordering[Any])
      extends SpecNode {
    private val ord = if (least) ord0.reverse else ord0

    def eval(columns: Array[ResultSpec]): ResultSpec = {
      var nullable = true
      var fallible = false
      var unbounded = false
      var anyValues = false
      var minLo: Any = null
      var maxHi: Any = null
      var floor: Any = null
      var i = 0
      while (i < children.length) {
        val c = children(i).eval(columns)
        nullable &&= c.nullable
        fallible ||= c.fallible
        c.values match {
          case Empty =>
          case Within(lo0, hi0) =>
            // In `least` mode the ordering is reversed, so the bounds swap roles.
            val (lo, hi) = if (least) (hi0, lo0) else (lo0, hi0)
            if (minLo == null) { minLo = lo; maxHi = hi } else {
              minLo = ord.min(minLo, lo)
              maxHi = ord.max(maxHi, hi)
            }
            if (!c.nullable) floor = if (floor == null) lo else ord.max(floor, lo)
            anyValues = true
          case _ =>
            anyValues = true
            unbounded = true
        }
        i += 1
      }
      val values =
        if (!anyValues) Empty
        else if (unbounded) All
        else {
          val lo = if (floor == null) minLo else ord.max(minLo, floor)
          if (least) Within(maxHi, lo) else Within(lo, maxHi)
        }
      ResultSpec(nullable, fallible, values)
    }
  }

  /**
   * `StartsWith(s, prefix)` and `s LIKE 'prefix...'` with a constant prefix over strings in
   * binary order: the strings starting with `prefix` are exactly those in `[prefix, next)`,
   * where `next` is the prefix with its last byte below 0xFF incremented (none if all are 0xFF).
   * When `exact` is false (a LIKE pattern with more than a trailing `%`) a match is only
   * possible in that interval, never certain.
   */
  final class Prefix(child: SpecNode, prefix: Any, next: Option[Any], exact: Boolean,
      ord: Ordering[Any]) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val c = child.eval(columns)
      c.values match {
        case Within(lo, hi) =>
          val mayMatch = ord.lteq(prefix, hi) && next.forall(n => ord.lt(lo, n))
          val mustMatch = exact && ord.lteq(prefix, lo) && next.exists(n => ord.lt(hi, n))
          ResultSpec.bool(!mustMatch, mayMatch, c.nullable, c.fallible)
        case Empty => ResultSpec.bool(false, false, c.nullable, c.fallible)
        case _ => ResultSpec.bool(true, true, c.nullable, c.fallible)
      }
    }
  }

  /**
   * A function monotone in its arguments (see [[Monotone]]): the result range is the function
   * at the range endpoints, evaluated with Spark's own `eval` on `template` (the function, or
   * its checked twin, with constant arguments folded and the others bound to row slots).
   *
   * Whenever the endpoints do not pin the result down (an argument admits anything or leaves
   * [[Monotonicity.inDomain]], the twin raised, a result is null or out of order),
   * the result is any value; errors are admitted whenever the function may raise.
   */
  final class MonotoneCall(
      args: Array[SpecNode],
      directions: Array[Direction],
      template: Expression,
      checkedTwin: Boolean,
      raises: Raises,
      zero: Any,
      slack: Array[Long],
      argTypes: Array[DataType],
      argOrd: Array[Ordering[Any]],
      ord: Ordering[Any]) extends SpecNode {

    private val anyResult = raises != Raises.Never

    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val n = args.length
      val specs = new Array[ResultSpec](n)
      var nullable = false
      var fallible = false
      var empty = false
      var bounded = true
      var i = 0
      while (i < n) {
        val s = args(i).eval(columns)
        specs(i) = s
        nullable ||= s.nullable
        fallible ||= s.fallible
        s.values match {
          case Empty => empty = true
          case Within(lo, hi) =>
            if (!Monotonicity.inDomain(lo, argTypes(i)) || !Monotonicity.inDomain(hi, argTypes(i))) {
              bounded = false
            }
          case _ => bounded = false
        }
        i += 1
      }
      if (empty) ResultSpec(nullable, fallible, Empty)
      else if (!bounded) ResultSpec(nullable = true, fallible || anyResult, All)
      else mapEndpoints(specs, nullable, fallible)
    }

    private def mapEndpoints(specs: Array[ResultSpec], nullable: Boolean, fallible: Boolean) = {
      val los = new Array[Any](args.length)
      val his = new Array[Any](args.length)
      var i = 0
      while (i < args.length) {
        val w = specs(i).values.asInstanceOf[Within]
        val lo = Monotonicity.widen(w.lo, -slack(i))
        val hi = Monotonicity.widen(w.hi, slack(i))
        val down = directions(i) match {
          case Direction.Down => true
          case Direction.DownThenUp => argOrd(i).lteq(hi, zero)
          case _ => false
        }
        if (down) { los(i) = hi; his(i) = lo } else { los(i) = lo; his(i) = hi }
        i += 1
      }
      val (lo, hi) =
        if (directions(0) == Direction.DownThenUp && argOrd(0).lt(los(0), zero) &&
            argOrd(0).gt(his(0), zero)) {
          // `abs` over a range across zero: smallest at zero, largest at one of the two ends.
          val atLow = call(Array(los(0)))
          val atHigh = call(Array(his(0)))
          val top = if (atLow == Failed || atHigh == Failed) Failed
            else if (atLow == null || atHigh == null) null
            else ord.max(atLow, atHigh)
          (call(Array(zero)), top)
        } else {
          (call(los), call(his))
        }
      if (lo == Failed || hi == Failed) {
        ResultSpec(nullable = true, fallible || !checkedTwin || anyResult, All)
      } else if (lo == null || hi == null || isNaN(lo) || isNaN(hi) || ord.gt(lo, hi)) {
        ResultSpec(nullable = true, fallible || anyResult, All)
      } else {
        ResultSpec(nullable, fallible, Within(lo, hi))
      }
    }

    private def isNaN(v: Any): Boolean = v match {
      case d: Double => d.isNaN
      case f: Float => f.isNaN
      case _ => false
    }

    /** The function at one point, or [[Failed]] if it raised. */
    private def call(point: Array[Any]): Any =
      try template.eval(new GenericInternalRow(point))
      catch { case scala.util.control.NonFatal(_) => Failed }
  }

  /** Marks an endpoint at which the function raised. */
  private object Failed
}
