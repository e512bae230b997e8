package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.unsafe.types.UTF8String

/**
 * The columns whose bounds (order statistics: a part's min and max) the interpreter reads to decide
 * an expression: the columns it reaches through comparisons, `IN`, prefixes, the logical and
 * conditional operators, and through the functions its registries know to be monotone
 * ([[Monotonicity]]: casts, arithmetic, `date_trunc`, ...) or piecewise monotone ([[Piecewise]]),
 * in their varying arguments. A column read only through anything else — JSON extraction and
 * VARIANT functions (decided, if at all, by the column's JSON statistics), user-defined functions,
 * hashes, `length`, a `substring` not from the first character — is not one: no layout by its
 * order helps decide the expression.
 */
object OrderedColumns {

  def of(e: Expression): Set[Attribute] = e match {
    case a: Attribute => if (ValueOrdering.isRanged(a.dataType)) Set(a) else Set.empty
    case _ if !e.deterministic || e.foldable => Set.empty
    case r: RuntimeReplaceable => of(r.replacement)
    case c: Cast if c.child.dataType == c.dataType => of(c.child)
    case _: expressions.And | _: expressions.Or | _: expressions.Not | _: expressions.IsNull | _: expressions.IsNotNull |
         _: TryEval | _: expressions.Coalesce | _: If | _: expressions.CaseWhen => e.children.flatMap(of).toSet
    case _: BinaryComparison | _: expressions.In | _: expressions.InSet | _: Greatest | _: Least =>
      if (ValueOrdering.of(e.children.head.dataType).isDefined) e.children.flatMap(of).toSet else Set.empty
    case StartsWith(s, p) => if (prefixed(p, None)) of(s) else Set.empty
    case Like(s, p, escape) => if (prefixed(p, Some(escape))) of(s) else Set.empty
    case _: Lower | _: Upper => e.children.flatMap(of).toSet
    case _ =>
      Monotonicity.lookup(e).map(m => e.children.zip(m.directions).collect {
        case (child, d) if d != Direction.Fixed => of(child)
      }.flatten.toSet).orElse(Piecewise.lookup(e).map(p => of(p.arg))).getOrElse(Set.empty)
  }

  /** Whether `pattern` is a constant string with a non-empty literal prefix (a `LIKE` pattern when `escape` is given). */
  private def prefixed(pattern: Expression, escape: Option[Char]): Boolean =
    Interpreter.constant(pattern).flatten match {
      case Some(p: UTF8String) => escape.fold(p.numBytes() > 0)(c => Interpreter.likePrefix(p.toString, c)._1.nonEmpty)
      case _ => false
    }
}
