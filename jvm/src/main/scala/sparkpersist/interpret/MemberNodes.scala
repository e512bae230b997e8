package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions
import org.apache.spark.sql.catalyst.expressions.{ArrayContains, Attribute, EqualNullSafe, EqualTo, Expression, InSet}
import org.apache.spark.sql.types.ArrayType

import sparkpersist.stats.MembershipFilter

/** Point lookups that a part's [[MembershipFilter]] can answer ([[MemberSpecs]]). */
private[interpret] object MemberNodes {

  /**
   * The column and the non-null constants of a point lookup that is true only if the column
   * equals one of them: `a = c`, `c = a`, `a <=> c` (c not null), `a IN (c1, ...)` and its
   * `InSet` form, over a column of a [[MembershipFilter.supports supported]] type compared
   * without coercion (a cast of the column is not a point lookup on the column); and
   * `array_contains(a, c)` (c not null), true only if some element of `a` equals `c`.
   */
  def lookup(e: Expression): Option[(Attribute, MemberLookup)] = e match {
    case EqualTo(a: Attribute, c) => constants(a, Seq(c))
    case EqualTo(c, a: Attribute) => constants(a, Seq(c))
    case EqualNullSafe(a: Attribute, c) => constants(a, Seq(c)).filter(_._2.values.nonEmpty)
    case EqualNullSafe(c, a: Attribute) => constants(a, Seq(c)).filter(_._2.values.nonEmpty)
    case expressions.In(a: Attribute, list) => constants(a, list)
    case s: InSet => s.child match {
      case a: Attribute if MembershipFilter.supports(a.dataType) =>
        Some(a -> MemberLookup(s.hset.iterator.filter(_ != null).toSeq, a.dataType))
      case _ => None
    }
    case ArrayContains(a: Attribute, c) => a.dataType match {
      case ArrayType(et, _) => constants(a, et, Seq(c), inElements = true).filter(_._2.values.nonEmpty)
      case _ => None
    }
    case _ => None
  }

  private def constants(a: Attribute, items: Seq[Expression]): Option[(Attribute, MemberLookup)] =
    constants(a, a.dataType, items, inElements = false)

  /** The lookup of `items` (constants of type `dt`, the column's or its elements') on `a`. */
  private def constants(a: Attribute, dt: org.apache.spark.sql.types.DataType, items: Seq[Expression],
      inElements: Boolean): Option[(Attribute, MemberLookup)] =
    if (!MembershipFilter.supports(dt) || items.exists(_.dataType != dt)) None
    else {
      val values = items.map(Interpreter.constant)
      if (values.exists(_.isEmpty)) None else Some(a -> MemberLookup(values.flatMap(_.get), dt, inElements))
    }

  /**
   * A point lookup refined by the membership of its constants: when none may be present, it is
   * never true (false or null, errors as before; `array_contains` is null, not false, when an
   * element is null, which the lookup's own spec already admits). Stats that contradict each other (the bounds
   * say every row matches, the filter that none does) are corrupt: the lookup stays as it was.
   */
  final class Refine(lookup: SpecNode, present: SpecNode) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val r = lookup.eval(columns)
      if (!r.mayBeTrue || !r.mayBeFalse || present.eval(columns).mayBeTrue) r
      else ResultSpec.bool(mayBeFalse = true, mayBeTrue = false, r.nullable, r.fallible)
    }
  }
}
