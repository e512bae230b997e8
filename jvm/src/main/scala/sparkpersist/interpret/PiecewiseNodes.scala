package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.interpret.Values._

/** [[SpecNode]]s for functions that are monotone only piece by piece ([[Piecewise]]). */
private[interpret] object PiecewiseNodes {

  /**
   * A [[Piecewise]] function: the union over the pieces of the argument range of the function
   * at each piece's endpoints (Spark's own `eval`). A range the split refuses, or an endpoint
   * that is null, raises or is out of order, gives anything.
   */
  final class Call(arg: SpecNode, f: Piecewise, ord: Ordering[Any]) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val a = arg.eval(columns)
      a.values match {
        case Empty => a
        case Within(lo, hi) =>
          f.split(lo, hi).flatMap(hull).fold(ResultSpec.Anything)(ResultSpec(a.nullable, a.fallible, _))
        case _ => ResultSpec.Anything
      }
    }

    private def hull(pieces: Seq[(Any, Any)]): Option[Values] =
      pieces.foldLeft(Option[Values](Empty)) { case (acc, (lo, hi)) =>
        for {
          values <- acc
          l <- Piecewise.call(f.template, lo)
          h <- Piecewise.call(f.template, hi)
          if ord.lteq(l, h)
        } yield Values.union(values, Within(l, h), ord)
      }
  }

  /**
   * `lower`/`upper` of a string: every string in `[lo, hi]` starts with their common prefix,
   * so every result starts with the function of the prefix's leading ASCII letters other than
   * `i`/`I` (whose case mapping no locale changes or makes depend on what follows). A single
   * string maps to its own result.
   */
  final class CaseMapped(arg: SpecNode, template: Expression, ord: Ordering[Any]) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val a = arg.eval(columns)
      a.values match {
        case Empty => a
        case Within(lo, hi) if ord.equiv(lo, hi) =>
          Piecewise.call(template, lo).fold(ResultSpec.Anything)(v => ResultSpec(a.nullable, a.fallible, Within(v, v)))
        case Within(lo: UTF8String, hi: UTF8String) =>
          val p = stablePrefix(lo.getBytes, hi.getBytes)
          val mapped = if (p.isEmpty) None else Piecewise.call(template, UTF8String.fromBytes(p))
          val bounds = mapped.collect { case m: UTF8String =>
            Interpreter.nextPrefix(m.getBytes).map(n => Within(m, UTF8String.fromBytes(n)))
          }.flatten
          ResultSpec(nullable = a.nullable || bounds.isEmpty, a.fallible, bounds.getOrElse(All))
        case _ => ResultSpec(nullable = true, a.fallible, All)
      }
    }

    private def stablePrefix(a: Array[Byte], b: Array[Byte]): Array[Byte] = {
      var n = 0
      while (n < a.length && n < b.length && a(n) == b(n) && a(n) > 0 && a(n) != 'i' && a(n) != 'I') n += 1
      java.util.Arrays.copyOf(a, n)
    }
  }
}
