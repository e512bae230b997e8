package sparkpersist.interpret

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.expressions
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.variant.VariantGet
import org.apache.spark.sql.types.{ArrayType, DataType, DoubleType, FloatType, MapType, StringType, StructType, VariantType}
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.interpret.SpecNode.Comparison

/**
 * The abstract interpreter: compiles a Catalyst expression into a [[SpecNode]] that computes the
 * expression's [[ResultSpec]] from the specs of the columns it reads.
 *
 * Literals and constant subexpressions are exact; boolean logic follows SQL's three values;
 * comparisons, `IN`, `IS [NOT] NULL`, `COALESCE`, `IF`/`CASE WHEN`, `GREATEST`/`LEAST`,
 * `startswith`/`LIKE 'prefix%'` are interpreted directly, and so are struct fields, array
 * elements, map values, sizes and `array_contains` ([[CollectionNodes]]), and JSON reads:
 * `variant_get`/`try_variant_get` (and `v:path`), casts of VARIANT values, `get_json_object` and
 * numeric casts of it (see [[JsonCasts]]), `parse_json`/`try_parse_json` of JSON text columns
 * ([[ParseJsonSpecs]]), casts of string columns to numbers, dates and
 * timestamps from their cast stats ([[TextCasts]]); functions in the [[Monotonicity]]
 * registry map ranges through their endpoints, and so do user functions declared monotone (JVM
 * functions evaluated here, Python ones read from a [[UdfTable]]). Everything else (other UDFs,
 * non-deterministic expressions, subqueries, unlisted classes) gives [[ResultSpec.Anything]].
 *
 * It interprets analyzed expressions as they are: evaluation modes (ANSI, legacy, try) come
 * from each expression, as the analyzer fixed them from `spark.sql.ansi.enabled`.
 */
object Interpreter {
  import SpecNode._

  /**
   * Compiles `e`. `slotOf` gives the slot of the column spec an attribute reads (attributes
   * without a slot admit any value, and never raise); `mzNow` is the spec of `mz_now()`.
   * `castSlotOf` gives the slot of the spec of a cast of a string column ([[CastSpecs]]); casts
   * without one are interpreted as any other cast. `memberSlotOf` gives the slot of whether a
   * column (or its arrays' elements) may hold one of some constants ([[MemberSpecs]]), for point
   * lookups ([[MemberNodes]]).
   * `monotoneUdfs` gives the direction of JVM user functions declared monotone (by lower-case
   * name, see `spark.sparkpersist.udf.monotone`): in every argument, raising only at the tails.
   * `parseJsonSlotOf` gives the slot of the spec of `parse_json` of a column (`true`: raising on
   * values that do not parse, `false`: `try_parse_json`), see [[ParseJsonSpecs]].
   * `udfTable` gives the values of Python user functions declared in `monotoneUdfs` (the driver
   * cannot evaluate them), see [[TabledNodes]].
   * `collatedSlotOf` gives the slot of a collated string column's bounds in its collation's order
   * ([[CollatedSpecs]]), read by comparisons and `IN` of the column with constants.
   */
  def compile(e: Expression, slotOf: Attribute => Option[Int], mzNow: ResultSpec,
      castSlotOf: (Attribute, TextCasts.TextCast) => Option[Int] = (_, _) => None,
      memberSlotOf: (Attribute, MemberLookup) => Option[Int] = (_, _) => None,
      monotoneUdfs: Map[String, Direction] = Map.empty,
      parseJsonSlotOf: (Attribute, Boolean) => Option[Int] = (_, _) => None,
      udfTable: UdfTable = UdfTable.Empty,
      collatedSlotOf: Attribute => Option[Int] = _ => None): SpecNode =
    new Compiler(slotOf, mzNow, castSlotOf, memberSlotOf, monotoneUdfs, parseJsonSlotOf, udfTable,
      collatedSlotOf).compile(e)

  /** The declared monotone Python functions `e` calls, by lower-case name ([[TabledNodes]]). */
  def tabledCalls(e: Expression, monotoneUdfs: Map[String, Direction]): Seq[String] =
    e.collect { case p: PythonUDF if tabled(p, monotoneUdfs) => lowerName(p.name) }.distinct

  private def tabled(p: PythonUDF, monotoneUdfs: Map[String, Direction]): Boolean =
    p.udfDeterministic && PythonUDF.isScalarPythonUDF(p) && monotoneUdfs.contains(lowerName(p.name))

  private def lowerName(name: String): String = name.toLowerCase(java.util.Locale.ROOT)

  /**
   * The value of a constant (foldable, deterministic) expression: `Some(Some(v))`, `Some(None)`
   * for null, or `None` if it is not a constant or raises.
   */
  def constant(e: Expression): Option[Option[Any]] =
    if (!e.foldable || !e.deterministic) None
    else try Some(Option(e.eval())) catch { case NonFatal(_) => None }

  /** `e` without casts to its own type (the analyzer adds some; the interpreter reads through them). */
  def withoutOwnTypeCasts(e: Expression): Expression = e match {
    case c: Cast if c.child.dataType == c.dataType => withoutOwnTypeCasts(c.child)
    case _ => e
  }

  /** The spec of one constant value of type `dt`. */
  def constantSpec(v: Any, dt: DataType): ResultSpec =
    if (v == null) ResultSpec.AlwaysNull
    else if (ValueOrdering.isRanged(dt)) ResultSpec.point(v)
    else ResultSpec(nullable = false, fallible = false, Values.All)

  private val alwaysFails = ResultSpec(nullable = false, fallible = true, Values.Empty)

  /** Comparisons, `<=>` and `IN` of collated strings whose stats follow the collation: its order. */
  private object Collated {
    def unapply(e: Expression): Option[Ordering[Any]] = e match {
      case _: BinaryComparison | _: expressions.In | _: expressions.InSet =>
        ValueOrdering.collated(e.children.head.dataType)
      case _ => None
    }
  }

  private final class Compiler(slotOf: Attribute => Option[Int], mzNow: ResultSpec,
      castSlotOf: (Attribute, TextCasts.TextCast) => Option[Int],
      memberSlotOf: (Attribute, MemberLookup) => Option[Int],
      monotoneUdfs: Map[String, Direction],
      parseJsonSlotOf: (Attribute, Boolean) => Option[Int],
      udfTable: UdfTable,
      collatedSlotOf: Attribute => Option[Int]) {

    def compile(e: Expression): SpecNode = {
      val node = compileNode(e)
      val member = MemberNodes.lookup(e).flatMap { case (a, lookup) => memberSlotOf(a, lookup) }
        .fold(node)(slot => new MemberNodes.Refine(node, new Column(slot)))
      JsonLookups.lookup(e).flatMap(l => jsonPlace(l.read).map((_, l)))
        .fold(member) { case (place, l) => new MemberNodes.Refine(member, new JsonLookups.Present(place, l.hashes, l.integers)) }
    }

    /** The JSON value a JSON read of a lookup ([[JsonLookups.reads]]) reads, at its path. */
    private def jsonPlace(read: Expression): Option[SpecNode] = read match {
      case Cast(v: VariantGet, _, _, _) => variantPlace(v)
      case v: VariantGet => variantPlace(v)
      case Cast(g: GetJsonObject, _, _, _) => Some(jsonText(g))
      case g: GetJsonObject => Some(jsonText(g))
      case _ => None
    }

    private def compileNode(e: Expression): SpecNode = e match {
      case _: MzNow => new Const(mzNow)
      case a: Attribute => slotOf(a).map(new Column(_)).getOrElse(new Const(ResultSpec.AnyValue))
      case _ if !e.deterministic => anything
      case _ if e.foldable =>
        constant(e) match {
          case Some(v) => new Const(constantSpec(v.orNull, e.dataType))
          case None => new Const(alwaysFails)
        }
      case ParseJsonCall(a: Attribute, raises) =>
        parseJsonSlotOf(a, raises).map(new Column(_)).getOrElse(anything)
      case r: RuntimeReplaceable => compile(r.replacement)
      case v: VariantGet => variantGet(v)
      case c: Cast if c.child.dataType == VariantType =>
        new JsonNodes.Read(compile(c.child), JsonCasts.fromVariant(_, c.dataType, c.timeZoneId),
          raises = c.evalMode != EvalMode.TRY, alwaysNullable = false)
      case c @ Cast(g: GetJsonObject, _, _, _) if JsonCasts.textTarget(c.dataType) =>
        val strings = Option.when(TextCasts.supported(g.dataType, c.dataType))(
          TextCasts.TextCast(c.dataType, c.evalMode, c.timeZoneId))
        new JsonNodes.Read(jsonText(g), JsonCasts.fromText(_, c.dataType, strings),
          raises = c.evalMode == EvalMode.ANSI, alwaysNullable = true)
      case g: GetJsonObject =>
        new JsonNodes.Read(jsonText(g), JsonCasts.text, raises = false, alwaysNullable = true)
      case c @ Cast(a: Attribute, target, _, _) if TextCasts.supported(a.dataType, target) =>
        castSlotOf(a, TextCasts.TextCast(target, c.evalMode, c.timeZoneId)).map(new Column(_))
          .getOrElse(Monotonicity.lookup(c).map(monotone(c, _)).getOrElse(anything))
      case c: Cast if c.child.dataType == c.dataType => compile(c.child)
      case expressions.And(l, r) => new SpecNode.And(compile(l), compile(r))
      case expressions.Or(l, r) => new SpecNode.Or(compile(l), compile(r))
      case expressions.Not(c) => new SpecNode.Not(compile(c))
      case expressions.IsNull(c) => new SpecNode.IsNull(compile(c), negated = false)
      case expressions.IsNotNull(c) => new SpecNode.IsNull(compile(c), negated = true)
      case TryEval(c) => new Try(compile(c))
      case Collated(ord) => collated(e, ord).getOrElse(anything)
      case EqualTo(l, r) => compare(Comparison.Eq, l, r)
      case LessThan(l, r) => compare(Comparison.Lt, l, r)
      case LessThanOrEqual(l, r) => compare(Comparison.LtEq, l, r)
      case GreaterThan(l, r) => compare(Comparison.Lt, r, l)
      case GreaterThanOrEqual(l, r) => compare(Comparison.LtEq, r, l)
      case expressions.EqualNullSafe(l, r) =>
        ordered(l.dataType)(new SpecNode.EqualNullSafe(compile(l), compile(r), _))
      case expressions.In(v, list) =>
        ordered(v.dataType)(new SpecNode.In(compile(v), list.map(compile).toArray, _))
      case s: expressions.InSet => ordered(s.child.dataType)(inSet(s, _))
      case expressions.Coalesce(children) =>
        new SpecNode.Coalesce(children.map(compile).toArray, ValueOrdering.of(e.dataType).orNull)
      case If(p, t, f) =>
        new SpecNode.CaseWhen(Array(compile(p)), Array(compile(t)), Some(compile(f)),
          ValueOrdering.of(e.dataType).orNull)
      case expressions.CaseWhen(branches, otherwise) =>
        new SpecNode.CaseWhen(branches.map(b => compile(b._1)).toArray,
          branches.map(b => compile(b._2)).toArray, otherwise.map(compile),
          ValueOrdering.of(e.dataType).orNull)
      case Greatest(children) =>
        ordered(e.dataType)(new Extremum(children.map(compile).toArray, least = false, _))
      case Least(children) =>
        ordered(e.dataType)(new Extremum(children.map(compile).toArray, least = true, _))
      case StartsWith(s, p) => prefix(s, constant(p).flatten, exact = true)
      case Like(s, p, escape) =>
        constant(p).flatten match {
          case Some(pattern: UTF8String) =>
            val (lit, rest) = likePrefix(pattern.toString, escape)
            prefix(s, Some(UTF8String.fromString(lit)), exact = rest == "%")
          case _ => anything
        }
      case g: GetStructField =>
        uniqueField(g.child.dataType, g.ordinal)
          .map(new CollectionNodes.StructField(compile(g.child), _)).getOrElse(anything)
      case g: GetArrayStructFields =>
        uniqueField(g.child.dataType.asInstanceOf[ArrayType].elementType, g.ordinal)
          .map(new CollectionNodes.ArrayStructFields(compile(g.child), _)).getOrElse(anything)
      case s: Size => new CollectionNodes.Size(compile(s.child), s.legacySizeOfNull)
      case c: expressions.ArrayContains =>
        new CollectionNodes.ArrayContains(compile(c.left), compile(c.right),
          ValueOrdering.of(c.right.dataType).orNull)
      case g: GetArrayItem => arrayItem(g.child, g.ordinal, oneBased = false, g.failOnError, None)
      case g: GetMapValue => mapValue(g.child, g.key)
      case a: ElementAt if a.left.dataType.isInstanceOf[MapType] => mapValue(a.left, a.right)
      case a: ElementAt =>
        arrayItem(a.left, a.right, oneBased = true, a.failOnError, a.defaultValueOutOfBound)
      case u: ScalaUDF if u.udfDeterministic && u.udfName.exists(n => monotoneUdfs.contains(lowerName(n))) =>
        val direction = monotoneUdfs(lowerName(u.udfName.get))
        val call = monotone(u, Monotone(u.children.map(_ => direction).toVector, Raises.AtTails))
        // Spark answers null for a null primitive argument without calling the function; any
        // other argument reaches the function, which may map null to any value.
        if (u.inputPrimitives.length == u.children.length && u.inputPrimitives.forall(identity)) call
        else new TabledNodes.NonNullArgs(u.children.map(compile).toArray, call)
      case p: PythonUDF if tabled(p, monotoneUdfs) =>
        val call = TabledNodes.Call(lowerName(p.name), p.children, p.dataType, udfTable)
        new TabledNodes.NonNullArgs(p.children.map(compile).toArray,
          monotone(call, Monotone(p.children.map(_ => monotoneUdfs(call.function)).toVector, Raises.AtTails)))
      case l: Lower => caseMapped(l, l.child)
      case u: Upper => caseMapped(u, u.child)
      case _ =>
        Monotonicity.lookup(e).map(monotone(e, _))
          .orElse(Piecewise.lookup(e).map(piecewise(e, _)))
          .getOrElse(anything)
    }

    private def piecewise(e: Expression, f: Piecewise): SpecNode =
      ordered(e.dataType)(new PiecewiseNodes.Call(compile(f.arg), f, _))

    private def caseMapped(e: Expression, child: Expression): SpecNode =
      if (!ValueOrdering.isRanged(child.dataType)) anything
      else ordered(e.dataType)(new PiecewiseNodes.CaseMapped(compile(child),
        e.withNewChildren(Seq(BoundReference(0, child.dataType, nullable = true))), _))

    private def anything: SpecNode = new Const(ResultSpec.Anything)

    /**
     * The name of field `ordinal` of `struct`, if no other field has it: stats are keyed by the
     * field's name as the schema spells it (the expression's own name may differ in case).
     */
    private def uniqueField(struct: DataType, ordinal: Int): Option[String] = {
      val fields = struct.asInstanceOf[StructType].fields
      Some(fields(ordinal).name).filter(n => fields.count(_.name == n) == 1)
    }

    private def arrayItem(array: Expression, index: Expression, oneBased: Boolean,
        failOnError: Boolean, default: Option[Literal]): SpecNode = {
      val elementType = array.dataType.asInstanceOf[ArrayType].elementType
      val outOfRange = default.fold(ResultSpec.AlwaysNull)(l => constantSpec(l.value, elementType))
      new CollectionNodes.ArrayItem(compile(array), compile(index), oneBased, failOnError,
        outOfRange, ValueOrdering.of(elementType).orNull)
    }

    private def mapValue(map: Expression, key: Expression): SpecNode = {
      val mapType = map.dataType.asInstanceOf[MapType]
      new CollectionNodes.MapValue(compile(map), compile(key),
        ValueOrdering.of(mapType.keyType).orNull, ValueOrdering.of(mapType.valueType).orNull)
    }

    /**
     * `variant_get(v, path, type)`: the value at a constant path, read as `type` (a VARIANT
     * target keeps the value, JSON null included). A path that is not a constant or does not
     * parse raises when evaluated: anything.
     */
    private def variantGet(v: VariantGet): SpecNode = variantPlace(v) match {
      case None => anything
      case Some(value) =>
        if (v.dataType == VariantType) new JsonNodes.Rebuild(value)
        else new JsonNodes.Read(value, JsonCasts.fromVariant(_, v.dataType, v.timeZoneId), raises = v.failOnError,
          alwaysNullable = false)
    }

    /** The JSON value `variant_get` reads at its path, if the path is a constant Spark parses. */
    private def variantPlace(v: VariantGet): Option[SpecNode] =
      constant(v.path).flatten.flatMap(p => JsonNodes.variantPath(p.toString))
        .map(steps => new JsonNodes.Path(compile(v.child), steps.toArray))

    /** The JSON value `get_json_object` reads (never raises: a path it cannot read gives null). */
    private def jsonText(g: GetJsonObject): SpecNode = {
      val steps = constant(g.path).flatten.fold[Seq[JsonNodes.Step]](Seq(JsonNodes.Unknown))(p =>
        JsonNodes.textPath(p.toString))
      new JsonNodes.Path(compile(g.json), steps.toArray)
    }

    private def ordered(dt: DataType)(node: Ordering[Any] => SpecNode): SpecNode =
      ValueOrdering.of(dt).map(node).getOrElse(anything)

    /**
     * A comparison, `<=>` or `IN` over strings of a collation whose stats follow it (`ord`), when
     * its operands are such columns and constants: the columns read through their collated slot.
     */
    private def collated(e: Expression, ord: Ordering[Any]): Option[SpecNode] = {
      def operand(x: Expression): Option[SpecNode] = withoutOwnTypeCasts(x) match {
        case a: Attribute => collatedSlotOf(a).map(new Column(_))
        case c => constant(c).map(v => new Const(v.fold(ResultSpec.AlwaysNull)(ResultSpec.point)))
      }
      def two(l: Expression, r: Expression)(node: (SpecNode, SpecNode) => SpecNode) =
        for (a <- operand(l); b <- operand(r)) yield node(a, b)
      e match {
        case EqualTo(l, r) => two(l, r)(new Compare(Comparison.Eq, _, _, ord))
        case LessThan(l, r) => two(l, r)(new Compare(Comparison.Lt, _, _, ord))
        case LessThanOrEqual(l, r) => two(l, r)(new Compare(Comparison.LtEq, _, _, ord))
        case GreaterThan(l, r) => two(r, l)(new Compare(Comparison.Lt, _, _, ord))
        case GreaterThanOrEqual(l, r) => two(r, l)(new Compare(Comparison.LtEq, _, _, ord))
        case expressions.EqualNullSafe(l, r) => two(l, r)(new SpecNode.EqualNullSafe(_, _, ord))
        case expressions.In(v, list) =>
          val items = list.map(operand)
          if (items.exists(_.isEmpty)) None
          else operand(v).map(new SpecNode.In(_, items.map(_.get).toArray, ord))
        case s: expressions.InSet => operand(s.child).map(new SpecNode.InSet(_,
          s.hset.iterator.filter(_ != null).toArray.sorted(ord), s.hset.contains(null), floating = false, ord))
        case _ => None
      }
    }

    private def compare(op: Comparison, l: Expression, r: Expression): SpecNode =
      ordered(l.dataType)(new Compare(op, compile(l), compile(r), _))

    private def inSet(s: expressions.InSet, ord: Ordering[Any]): SpecNode = {
      val values = s.hset.iterator.filter(_ != null).toArray.sorted(ord)
      new SpecNode.InSet(compile(s.child), values, s.hset.contains(null),
        floating = s.child.dataType == FloatType || s.child.dataType == DoubleType,
        ord)
    }

    private def prefix(s: Expression, p: Option[Any], exact: Boolean): SpecNode =
      (s.dataType, p) match {
        case (st: StringType, Some(bytes: UTF8String)) if ValueOrdering.isRanged(st) =>
          val ord = ValueOrdering.of(st).get
          new Prefix(compile(s), bytes, nextPrefix(bytes.getBytes).map(UTF8String.fromBytes), exact, ord)
        case _ => anything
      }

    /** Compiles a registered monotone function with its non-constant arguments bound to slots. */
    private def monotone(e: Expression, entry: Monotone): SpecNode = {
      val ord = ValueOrdering.of(e.dataType)
      val children = e.children.toIndexedSeq
      val bound = children.indices.map { i =>
        if (entry.directions(i) == Direction.Fixed) constant(children(i)).map(v => Literal.create(v.orNull, children(i).dataType))
        else Some(BoundReference(-1, children(i).dataType, nullable = true))
      }
      val varying = children.indices.filter(entry.directions(_) != Direction.Fixed)
      if (ord.isEmpty || bound.exists(_.isEmpty) || varying.isEmpty ||
          varying.exists(i => ValueOrdering.of(children(i).dataType).isEmpty)) {
        return anything
      }
      val boundChildren = children.indices.map { i =>
        bound(i).get match {
          case b: BoundReference => b.copy(ordinal = varying.indexOf(i))
          case lit => lit
        }
      }
      val rebound = e.withNewChildren(boundChildren)
      val checked = Monotonicity.lookup(rebound).flatMap(_.checked)
      val slack = entry.zoneDependent && Monotonicity.needsZoneSlack(e)
      new MonotoneCall(
        args = varying.map(i => compile(children(i))).toArray,
        directions = varying.map(entry.directions).toArray,
        template = checked.getOrElse(rebound),
        checkedTwin = checked.isDefined,
        raises = entry.raises,
        zero = Literal.default(children(varying.head).dataType).value,
        slack = varying.map(i =>
          if (slack) Monotonicity.zoneSlack(children(i).dataType) else 0L).toArray,
        argTypes = varying.map(children(_).dataType).toArray,
        argOrd = varying.map(i => ValueOrdering.of(children(i).dataType).get).toArray,
        ord = ord.get)
    }
  }

  /**
   * The literal prefix of a LIKE pattern (up to the first wildcard or escape character) and the
   * rest of the pattern.
   */
  def likePrefix(pattern: String, escape: Char): (String, String) = {
    val end = pattern.indexWhere(c => c == '%' || c == '_' || c == escape)
    if (end < 0) (pattern, "") else (pattern.substring(0, end), pattern.substring(end))
  }

  /**
   * The smallest byte string greater than every string starting with `prefix`: drop trailing
   * 0xFF bytes and increment the last remaining one; None if there is none (or the prefix is
   * empty: every string starts with it).
   */
  def nextPrefix(prefix: Array[Byte]): Option[Array[Byte]] = {
    var end = prefix.length
    while (end > 0 && prefix(end - 1) == 0xFF.toByte) end -= 1
    if (end == 0) None
    else {
      val next = java.util.Arrays.copyOf(prefix, end)
      next(end - 1) = (next(end - 1) + 1).toByte
      Some(next)
    }
  }
}
