package sparkpersist.interpret

import org.apache.spark.sql.types.IntegerType

import sparkpersist.interpret.Values._

/**
 * [[SpecNode]]s that read inside structs, arrays and maps, from [[Values.Nested]] specs laid out
 * as [[CollectionSpec]] describes. A collection spec that is not nested (a constant, an
 * unknown function) gives sizes `[0, Int.MaxValue]` and elements that may be anything.
 */
private[interpret] object CollectionNodes {
  import CollectionSpec._

  private val intOrd = ValueOrdering.of(IntegerType).get
  private val none = ResultSpec(nullable = false, fallible = false, Empty)

  /**
   * An access to a collection at an index or key, null if either is: [[read]] gets both specs
   * when both may have values, and `known`, the nulls and errors of the operands.
   */
  abstract class Access(collection: SpecNode, at: SpecNode) extends SpecNode {
    final def eval(columns: Array[ResultSpec]): ResultSpec = {
      val c = collection.eval(columns)
      val a = at.eval(columns)
      val known = ResultSpec(c.nullable || a.nullable, c.fallible || a.fallible, Empty)
      if (!c.hasValues || !a.hasValues) known else read(c, a, known)
    }

    protected def read(collection: ResultSpec, at: ResultSpec, known: ResultSpec): ResultSpec
  }

  /**
   * The spec of field `name` of the struct values of `struct`: a [[Values.Nested]] spec knows
   * it (field specs are over the same values as the struct's, null where the struct is null),
   * anything else admits anything.
   */
  def field(struct: ResultSpec, name: String): ResultSpec = struct.values match {
    case Nested(fields) =>
      val f = fields.getOrElse(name, ResultSpec.AnyValue)
      ResultSpec(f.nullable || struct.nullable, f.fallible || struct.fallible, f.values)
    case Empty => ResultSpec(struct.nullable, struct.fallible, Empty)
    case _ => ResultSpec(nullable = true, struct.fallible, All)
  }

  /** A struct field (`GetStructField`, `a.b.c`). */
  final class StructField(child: SpecNode, name: String) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = field(child.eval(columns), name)
  }

  /**
   * A field of every struct of an array of structs (`GetArrayStructFields`, `array.f`): an array
   * of the same sizes whose elements are that field of the elements (null where one is null).
   */
  final class ArrayStructFields(child: SpecNode, name: String) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val c = child.eval(columns)
      c.values match {
        case Nested(pieces) =>
          val elements = field(piece(c.values, Element), name)
          c.copy(values = CollectionSpec.array(pieces.get(Size), Some(elements)))
        case _ => c
      }
    }
  }

  /**
   * `size(c)` (also `cardinality`, `array_size`) of an array or a map: the size range; for a
   * null collection -1 when `legacySizeOfNull`, else null (the expression fixed which at
   * analysis, from `spark.sql.legacy.sizeOfNull` and ANSI mode).
   */
  final class Size(child: SpecNode, legacySizeOfNull: Boolean) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val c = child.eval(columns)
      val sizes = if (c.hasValues) CollectionSpec.sizes(c.values) else Empty
      if (c.nullable && legacySizeOfNull) {
        ResultSpec(nullable = false, c.fallible, Values.union(sizes, Values.point(-1), intOrd))
      } else {
        ResultSpec(c.nullable, c.fallible, sizes)
      }
    }
  }

  /**
   * An array element by index: `array[i]` (`GetArrayItem`, 0-based) or `element_at(array, i)`
   * (1-based, negative counts from the end, 0 always raises). An index out of range raises when
   * `failOnError` (ANSI), else gives `outOfRange` (null, or `element_at`'s default value).
   * Whether an index may be in or out of range comes from the array's size range. Null array or
   * index: null.
   *
   * Spark reads the index as an int (`intValue`), so an index range beyond the int range may
   * land anywhere; `element_at` at `Int.MinValue` is not handled consistently by Spark (its
   * absolute value overflows) and gives anything.
   */
  final class ArrayItem(array: SpecNode, index: SpecNode, oneBased: Boolean, failOnError: Boolean,
      outOfRange: ResultSpec, ord: Ordering[Any]) extends Access(array, index) {

    protected def read(a: ResultSpec, i: ResultSpec, known: ResultSpec): ResultSpec = {
      val sizes = CollectionSpec.sizes(a.values)
      val (smin, smax) = (sizes.lo.asInstanceOf[Int].toLong, sizes.hi.asInstanceOf[Int].toLong)
      val (lo, hi) = indexRange(i.values)
      if (oneBased && lo == Int.MinValue) return ResultSpec.Anything
      val (mayIn, mayOut, mayZero) =
        if (!oneBased) (hi >= 0 && lo < smax, lo < 0 || hi >= smin, false)
        else {
          val positive = hi >= 1
          val negative = lo <= -1
          (positive && math.max(lo, 1L) <= smax || negative && -math.min(hi, -1L) <= smax,
            positive && hi > smin || negative && -lo > smin,
            lo <= 0 && hi >= 0)
        }
      var result = if (mayZero) known.orFail else known
      if (mayIn) result = result.union(piece(a.values, Element), ord)
      if (mayOut) result = if (failOnError) result.orFail else result.union(outOfRange, ord)
      result
    }

    private def indexRange(values: Values): (Long, Long) = values match {
      case Within(lo: Number, hi: Number)
          if lo.longValue >= Int.MinValue && hi.longValue <= Int.MaxValue => (lo.longValue, hi.longValue)
      case _ => (Int.MinValue.toLong, Int.MaxValue.toLong)
    }
  }

  /**
   * The value of a key in a map: `map[k]` (`GetMapValue`) and `element_at(map, k)`. A missing key
   * gives null in Spark 4 (never an error, ANSI or not). The key may be found only if the maps'
   * keys may equal it; it is certainly found when every key equals it and no map is empty.
   *
   * @param keyOrd the key type's ordering, or null if it has none (then any key may match)
   */
  final class MapValue(map: SpecNode, key: SpecNode, keyOrd: Ordering[Any], ord: Ordering[Any])
      extends Access(map, key) {

    protected def read(m: ResultSpec, k: ResultSpec, known: ResultSpec): ResultSpec = {
      val sizes = CollectionSpec.sizes(m.values)
      val (differ, equal) =
        if (keyOrd == null) (true, true)
        else SpecNode.Compare.overlap(piece(m.values, Key).values, k.values, keyOrd)
      val mayFind = equal && sizes.hi.asInstanceOf[Int] > 0
      val mustFind = mayFind && !differ && sizes.lo.asInstanceOf[Int] > 0
      val found = if (mayFind) piece(m.values, Value) else none
      ResultSpec(known.nullable || !mustFind || found.nullable, known.fallible || found.fallible, found.values)
    }
  }
  /**
   * `array_contains(array, v)`: true if some element equals `v`; otherwise null if some element
   * is null, else false (an empty array gives false). Never raises. The value may be found only
   * if the elements may equal it; it is certainly found when every element equals it, none is
   * null and no array is empty.
   *
   * @param ord the element type's ordering, or null if it has none (then any element may match)
   */
  final class ArrayContains(array: SpecNode, value: SpecNode, ord: Ordering[Any])
      extends Access(array, value) {

    protected def read(a: ResultSpec, v: ResultSpec, known: ResultSpec): ResultSpec = {
      val sizes = CollectionSpec.sizes(a.values)
      val elements = piece(a.values, Element)
      val (differ, equal) =
        if (ord == null) (true, true) else SpecNode.Compare.overlap(elements.values, v.values, ord)
      val mayFind = equal && sizes.hi.asInstanceOf[Int] > 0
      val mustFind = mayFind && !differ && !elements.nullable && sizes.lo.asInstanceOf[Int] > 0
      ResultSpec.bool(mayBeFalse = !mustFind, mayBeTrue = mayFind,
        nullable = known.nullable || (elements.nullable && !mustFind),
        fallible = known.fallible || (mayFind && elements.fallible))
    }
  }
}
