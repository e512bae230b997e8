package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types.DataType

import sparkpersist.schema.ShardSchema
import sparkpersist.stats.{BoundKeys, PartBounds}

/**
 * The part of a filter condition that can be decided over parts' bounds as primitives
 * ([[PartBounds]]), without building specs: comparisons (`=`, `<`, `<=`, `>`, `>=`) of a column
 * of a simple type ([[BoundKeys]]), or of a monotone function of one ([[ColumnFunction]]), with a
 * constant (`mz_now()` and constant expressions, as the interpreter values them), `IS [NOT] NULL`
 * of such a column, and AND, OR and NOT of those. It decides them as the interpreter does (the
 * same rules on the same bounds, the same errors; see `VectorFilterSuite`), at a few nanoseconds
 * per part.
 *
 * The condition's top-level conjuncts split into those compiled here and the rest. For one
 * part, [[decide]] answers ([[PartDecision]]):
 *  - `RuledOut`: the compiled conjuncts are false or null for every row, and cannot raise, and
 *    the rest cannot raise for any row either (it is built of columns, constants, comparisons,
 *    `IN` and boolean logic: [[VectorFilter.cannotRaise]]) or is empty: the condition is false or
 *    null, error-free;
 *  - `ProvenTrue`: the compiled conjuncts are the whole condition and are true for every row,
 *    never false, null or an error (the dual of ruling out);
 *  - `Undecided`: neither. When the filter is [[whole]], that is final: the compiled conjuncts
 *    are the whole condition and none of them is a point lookup that a membership filter could
 *    refine, so the interpreter keeps the part too (and proves it true only where this does).
 *    Otherwise the interpreter must decide ([[PartFilter]] then does).
 */
final class VectorFilter private (
    root: VectorFilter.Node,
    columnIds: Array[Int],
    columnTypes: Array[DataType],
    /** Whether an undecided part is undecided for the interpreter too (see above). */
    val whole: Boolean,
    complete: Boolean,
    restCannotRaise: Boolean) {
  import VectorFilter._

  /** The decision for a part whose bounds of the columns read ([[bounds]]) are in `b`. */
  def decide(b: PartBounds): PartDecision = {
    val r = root.eval(b)
    if ((r & (MayBeTrue | MayFail)) == 0 && restCannotRaise) PartDecision.RuledOut
    else if (complete && (r & (MayBeFalse | MayBeNull | MayFail)) == 0) PartDecision.ProvenTrue
    else PartDecision.Undecided
  }

  /** A holder of the bounds this filter reads, to fill part after part (one per thread). */
  def bounds(): PartBounds = new PartBounds(columnIds, columnTypes)
}

object VectorFilter extends PredicateHelper {
  /** Result bits of a node for one part: whether it may be true, be false, raise, be null. */
  private val MayBeTrue = 1
  private val MayBeFalse = 2
  private val MayFail = 4
  private val MayBeNull = 8
  private val Both = MayBeTrue | MayBeFalse

  /**
   * The compiled conjuncts of `condition` (analyzed, boolean), if any; `columnIds`, `schema` and
   * `mzNow` as for [[PartFilter.compile]].
   */
  def compile(condition: Expression, columnIds: AttributeMap[Int], schema: ShardSchema,
      mzNow: ResultSpec): Option[VectorFilter] = {
    val columns = scala.collection.mutable.LinkedHashMap.empty[Int, DataType]
    def slot(a: Attribute): Option[Int] =
      for {
        id <- columnIds.get(a)
        column <- schema.columnById(id) if column.dataType == a.dataType && BoundKeys.supports(a.dataType)
      } yield {
        columns.getOrElseUpdate(id, a.dataType)
        columns.keysIterator.indexOf(id)
      }
    val compiler = new Compiler(slot, mzNow)
    val conjuncts = splitConjunctivePredicates(condition).map(c => c -> compiler.node(c))
    val (compiled, rest) = conjuncts.partition(_._2.isDefined)
    if (compiled.isEmpty) None
    else {
      val root = compiled.map(_._2.get).reduce[Node](new AndNode(_, _))
      val lookups = compiled.exists(_._1.exists(e => MemberNodes.lookup(e).isDefined))
      Some(new VectorFilter(root, columns.keys.toArray, columns.values.toArray,
        whole = rest.isEmpty && !lookups, complete = rest.isEmpty, restCannotRaise = rest.forall(c => cannotRaise(c._1))))
    }
  }

  /**
   * Whether `e` raises for no row: columns, constants and `mz_now()` combined by comparisons,
   * `IN`, null tests and boolean logic, none of which raises on values of their (analyzed) types.
   */
  def cannotRaise(e: Expression): Boolean = e match {
    case _: Attribute | _: Literal | _: MzNow => true
    case _: expressions.And | _: expressions.Or | _: expressions.Not | _: expressions.IsNull |
         _: expressions.IsNotNull | _: EqualTo | _: EqualNullSafe | _: LessThan | _: LessThanOrEqual |
         _: GreaterThan | _: GreaterThanOrEqual | _: expressions.In | _: InSet =>
      e.children.forall(cannotRaise)
    case _ => false
  }

  private final class Compiler(slot: Attribute => Option[Int], mzNow: ResultSpec) {

    def node(e: Expression): Option[Node] = e match {
      case expressions.And(l, r) => for (a <- node(l); b <- node(r)) yield new AndNode(a, b)
      case expressions.Or(l, r) => for (a <- node(l); b <- node(r)) yield new OrNode(a, b)
      case expressions.Not(c) => node(c).map(new NotNode(_))
      case expressions.IsNull(a: Attribute) => slot(a).map(new IsNullNode(_, negated = false))
      case expressions.IsNotNull(a: Attribute) => slot(a).map(new IsNullNode(_, negated = true))
      case EqualTo(l, r) => compare(Eq, Eq, l, r)
      case LessThan(l, r) => compare(Lt, Gt, l, r)
      case LessThanOrEqual(l, r) => compare(LtEq, GtEq, l, r)
      case GreaterThan(l, r) => compare(Gt, Lt, l, r)
      case GreaterThanOrEqual(l, r) => compare(GtEq, LtEq, l, r)
      case _ => None
    }

    /** `l op r` with a column on one side and a constant on the other (`flipped`: the op with sides swapped). */
    private def compare(op: Int, flipped: Int, l: Expression, r: Expression): Option[Node] =
      (Interpreter.withoutOwnTypeCasts(l), Interpreter.withoutOwnTypeCasts(r)) match {
      case (a: Attribute, c) => slot(a).flatMap(k => constant(c, a.dataType).map(column(op, k, _)))
      case (c, a: Attribute) => slot(a).flatMap(k => constant(c, a.dataType).map(column(flipped, k, _)))
      case (f, c) if c.references.isEmpty => mapped(op, f, c)
      case (c, f) if c.references.isEmpty => mapped(flipped, f, c)
      case _ => None
    }

    private def column(op: Int, k: Int, c: Option[(Long, Long)]): Node =
      c.fold[Node](NullNode) { case (klo, khi) => new CompareNode(op, k, klo, khi) }

    /**
     * `f(column) op c`, for `f` a [[ColumnFunction]] and `c` not null (`f` is evaluated, and may
     * raise, even when `c` is null).
     */
    private def mapped(op: Int, f: Expression, c: Expression): Option[Node] =
      for {
        (a, function) <- ColumnFunction.of(f)
        k <- slot(a)
        (klo, khi) <- constant(c, f.dataType).flatten
      } yield new MappedCompareNode(op, k, function, klo, khi)

    /**
     * The keys of the range of values of the constant `c` of type `dt`, as the interpreter
     * values `c` (a range for `mz_now()` over a continuous read), `Some(None)` when it is null:
     * None if `c` reads a column, may raise, or is not a range of `dt`'s values.
     */
    private def constant(c: Expression, dt: DataType): Option[Option[(Long, Long)]] =
      if (c.references.nonEmpty || c.dataType != dt || !BoundKeys.supports(dt)) None
      else {
        val spec = Interpreter.compile(c, _ => None, mzNow).eval(Array.empty)
        if (spec.fallible) None
        else spec.values match {
          case Values.Within(lo, hi) if BoundKeys.isValueOf(dt, lo) && BoundKeys.isValueOf(dt, hi) =>
            val (klo, khi) = (BoundKeys.key(dt, lo), BoundKeys.key(dt, hi))
            if (klo > khi) None else Some(Some((klo, khi)))
          case Values.Empty => Some(None)
          case _ => None
        }
      }
  }

  // ---- nodes: each gives MayBeTrue, MayBeFalse, MayBeNull and MayFail bits for one part ----

  private[interpret] abstract class Node {
    def eval(b: PartBounds): Int
  }

  private val Eq = 0
  private val Lt = 1
  private val LtEq = 2
  private val Gt = 3
  private val GtEq = 4

  /** Null for the rows whose column is null, when the part may hold such a row. */
  private def nulls(flags: Int): Int = if ((flags & PartBounds.MayBeNull) != 0) MayBeNull else 0

  /**
   * `column op [klo, khi]` (the column on the left): the interpreter's comparison of two ranges
   * (`Compare`), null where the column is null.
   */
  private final class CompareNode(op: Int, k: Int, klo: Long, khi: Long) extends Node {
    def eval(b: PartBounds): Int = nulls(b.flags(k)) | values(b)

    private def values(b: PartBounds): Int = {
      val f = b.flags(k)
      if ((f & PartBounds.HasValues) == 0) 0
      else if ((f & PartBounds.Bounded) == 0) Both
      else {
        val l = b.lower(k)
        val h = b.upper(k)
        val mayBeTrue = op match {
          case Eq => l <= khi && klo <= h
          case Lt => l < khi
          case LtEq => l <= khi
          case Gt => klo < h
          case _ => klo <= h
        }
        val mayBeFalse = op match {
          case Eq => !(l == h && klo == khi && l == klo)
          case Lt => h >= klo
          case LtEq => h > klo
          case Gt => khi >= l
          case _ => khi > l
        }
        (if (mayBeTrue) MayBeTrue else 0) | (if (mayBeFalse) MayBeFalse else 0)
      }
    }
  }

  /**
   * `f(column) op [klo, khi]`: as [[CompareNode]] on `f`'s values at the column's bounds, each
   * comparison of `f(x)` with a constant answered by comparing `x` with where `f` reaches it
   * ([[ColumnFunction.reaches]]); may raise where the interpreter's `MonotoneCall` says so. Null
   * where the column is null, and wherever `f` may leave its well-behaved range (outside it, `f`
   * may return null instead of raising).
   */
  private final class MappedCompareNode(op: Int, k: Int, f: ColumnFunction, klo: Long, khi: Long) extends Node {
    // The least column values at which f reaches klo, passes klo, reaches khi, passes khi.
    private val geLo = f.reaches(klo, strictly = false)
    private val gtLo = f.reaches(klo, strictly = true)
    private val geHi = f.reaches(khi, strictly = false)
    private val gtHi = f.reaches(khi, strictly = true)

    def eval(b: PartBounds): Int = nulls(b.flags(k)) | values(b)

    private def values(b: PartBounds): Int = {
      val flags = b.flags(k)
      if ((flags & PartBounds.HasValues) == 0) 0
      else if ((flags & PartBounds.Bounded) == 0) Both | MayBeNull | (if (f.unboundedFails) MayFail else 0)
      else {
        val l = b.lower(k)
        val h = b.upper(k)
        if (l < f.okFrom || h > f.okTo) Both | MayBeNull | (if (f.failureFails) MayFail else 0)
        else {
          // f(l) < v iff l is below reaches(v, false); f(l) <= v iff l is below reaches(v, true); likewise for h.
          val mayBeTrue = op match {
            case Eq => gtHi.below(l) && !geLo.below(h)
            case Lt => geHi.below(l)
            case LtEq => gtHi.below(l)
            case Gt => !gtLo.below(h)
            case _ => !geLo.below(h)
          }
          val mayBeFalse = op match {
            case Eq => !(klo == khi && !geLo.below(l) && gtLo.below(h))
            case Lt => !geLo.below(h)
            case LtEq => !gtLo.below(h)
            case Gt => gtHi.below(l)
            case _ => geHi.below(l)
          }
          (if (mayBeTrue) MayBeTrue else 0) | (if (mayBeFalse) MayBeFalse else 0)
        }
      }
    }
  }

  /** A comparison with a null constant: null for every row. */
  private object NullNode extends Node {
    def eval(b: PartBounds): Int = MayBeNull
  }

  private final class IsNullNode(k: Int, negated: Boolean) extends Node {
    def eval(b: PartBounds): Int = {
      val f = b.flags(k)
      val nulls = if ((f & PartBounds.MayBeNull) != 0) MayBeTrue else 0
      val values = if ((f & PartBounds.HasValues) != 0) MayBeFalse else 0
      if (negated) swap(nulls | values) else nulls | values
    }
  }

  /** Three-valued AND: null where one side is null and the other true or null. */
  private final class AndNode(l: Node, r: Node) extends Node {
    def eval(b: PartBounds): Int = {
      val x = l.eval(b)
      val y = r.eval(b)
      val nullable = ((x & MayBeNull) != 0 && (y & (MayBeTrue | MayBeNull)) != 0) ||
        ((y & MayBeNull) != 0 && (x & (MayBeTrue | MayBeNull)) != 0)
      (x & y & MayBeTrue) | ((x | y) & (MayBeFalse | MayFail)) | (if (nullable) MayBeNull else 0)
    }
  }

  /** Three-valued OR: null where one side is null and the other false or null. */
  private final class OrNode(l: Node, r: Node) extends Node {
    def eval(b: PartBounds): Int = {
      val x = l.eval(b)
      val y = r.eval(b)
      val nullable = ((x & MayBeNull) != 0 && (y & (MayBeFalse | MayBeNull)) != 0) ||
        ((y & MayBeNull) != 0 && (x & (MayBeFalse | MayBeNull)) != 0)
      ((x | y) & (MayBeTrue | MayFail)) | (x & y & MayBeFalse) | (if (nullable) MayBeNull else 0)
    }
  }

  private final class NotNode(c: Node) extends Node {
    def eval(b: PartBounds): Int = swap(c.eval(b))
  }

  private def swap(bits: Int): Int =
    ((bits & MayBeTrue) << 1) | ((bits & MayBeFalse) >> 1) | (bits & (MayFail | MayBeNull))
}
