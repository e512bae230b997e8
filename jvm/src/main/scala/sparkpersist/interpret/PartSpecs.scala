package sparkpersist.interpret

import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StringType, StructType, VariantType}

import sparkpersist.stats.{ArrayStats, ColumnStats, JsonStats, MapStats, PartStats, StructStats}

/**
 * What one input of a compiled filter reads from a part's statistics: a column ([[PartSpecs]]),
 * or a cast of a string column ([[CastSpecs]]).
 */
trait SlotSpecs {
  /** The stable id of the column it reads. */
  def columnId: Int

  def apply(stats: PartStats): ResultSpec
}

/**
 * Builds the spec of one column (stable id `columnId`, type `dataType`) from part statistics:
 * what the column may hold in that part. Reading a column never raises, so column specs are
 * never fallible.
 *
 *  - no statistics for the column: any value or null;
 *  - `nullCount >= rowCount`: only null (no values);
 *  - both bounds present: [[Values.Within]]`(lower, upper)` (truncated string bounds still
 *    bracket every value), nullable iff `nullCount > 0`;
 *  - structs, arrays and maps with nested stats: [[Values.Nested]], laid out as
 *    [[CollectionSpec]] describes, each piece built by these same rules from its own stats;
 *  - JSON stats (a VARIANT column, or a string column declared JSON): the documents, as a
 *    [[Values.Nested]] with its [[JsonSpec]] (a JSON text column's string bounds are then not
 *    used: string comparisons on it admit any string);
 *  - a bound absent, of the wrong class, out of order, or a type without ranges: any value.
 */
final class PartSpecs(val columnId: Int, val dataType: DataType) extends SlotSpecs {
  private val specs = ValueSpecs.of(dataType)

  def apply(stats: PartStats): ResultSpec =
    stats.columns.get(columnId) match {
      case Some(c) => apply(c, stats.rowCount)
      case None => ResultSpec.AnyValue
    }

  def apply(stats: ColumnStats, rowCount: Long): ResultSpec = specs(stats, rowCount)
}

/**
 * The spec of a string column of a collation [[sparkpersist.stats.CollatedStrings]] supports
 * (stable id `columnId`, type `dataType`): its bounds in the collation's order
 * ([[ValueOrdering.collated]]). Read only by comparisons of the column with constants
 * ([[Interpreter]]); the column's [[PartSpecs]] admit any string, so that functions of it, which
 * assume no order, see none.
 */
final class CollatedSpecs(val columnId: Int, dataType: DataType) extends SlotSpecs {
  private val specs = ValueSpecs.ranged(dataType, ValueOrdering.collated(dataType))

  def apply(stats: PartStats): ResultSpec =
    stats.columns.get(columnId).fold(ResultSpec.AnyValue)(specs(_, stats.rowCount))
}

/**
 * The spec of `count` values of one type (a column's rows, a struct field's rows, an array's
 * elements, a map's keys or values) from their [[ColumnStats]]. One instance per type node,
 * built once per column, so a part's specs cost no type dispatch.
 */
private[interpret] abstract class ValueSpecs {
  final def apply(stats: ColumnStats, count: Long): ResultSpec = {
    val nullable = stats.nullCount > 0
    if (stats.nullCount >= count) ResultSpec(nullable, fallible = false, Values.Empty)
    else ResultSpec(nullable, fallible = false, values(stats, count))
  }

  /** The non-null values among `count` values, given that some exist. */
  protected def values(stats: ColumnStats, count: Long): Values
}

private[interpret] object ValueSpecs {
  def of(dt: DataType): ValueSpecs = dt match {
    case s: StructType => new StructSpecs(s)
    case a: ArrayType => new ArraySpecs(a)
    case m: MapType => new MapSpecs(m)
    case _ => new RangeSpecs(dt, ValueOrdering.of(dt))
  }

  /** Bounds of `dt` in the order `ord` (none: any value). */
  def ranged(dt: DataType, ord: Option[Ordering[Any]]): ValueSpecs = new RangeSpecs(dt, ord)

  /** Bounds of a type with a value order; JSON documents of a VARIANT or JSON text column. */
  private final class RangeSpecs(dataType: DataType, order: Option[Ordering[Any]]) extends ValueSpecs {
    private val ord = order.orNull
    private val valueClass = ValueOrdering.valueClass(dataType)
    private val holdsJson = PartSpecs.holdsJson(dataType)

    protected def values(stats: ColumnStats, count: Long): Values = stats.nested match {
      case Some(js: JsonStats) if holdsJson => JsonSpec.values(js) match {
        case Values.Empty => Values.All // stats that count no document for non-null rows: corrupt
        case v => v
      }
      case _ => ranged(stats)
    }

    private def ranged(stats: ColumnStats): Values =
      if (ord == null || stats.lower.isEmpty || stats.upper.isEmpty) Values.All
      else {
        val lo = stats.lower.get
        val hi = stats.upper.get
        if (valueClass != null && valueClass.isInstance(lo) && valueClass.isInstance(hi) &&
            ord.lteq(lo, hi)) Values.Within(lo, hi)
        else Values.All
      }
  }

  /**
   * Field by field. Field stats are over the same values as the struct's (null where the struct
   * is), so they take the same count. Fields whose name is not unique in the struct get none.
   */
  private final class StructSpecs(struct: StructType) extends ValueSpecs {
    private val fields: Array[(String, ValueSpecs)] = struct.fields
      .filter(f => struct.fields.count(_.name == f.name) == 1)
      .map(f => f.name -> of(f.dataType))

    protected def values(stats: ColumnStats, count: Long): Values = stats.nested match {
      case Some(StructStats(known)) =>
        Values.Nested(fields.iterator.collect {
          case (name, specs) if known.contains(name) => name -> specs(known(name), count)
        }.toMap)
      case _ => Values.All
    }
  }

  /** Sizes and elements; the elements' count is the arrays' `elementCount`. */
  private final class ArraySpecs(array: ArrayType) extends ValueSpecs {
    private val elements = of(array.elementType)

    protected def values(stats: ColumnStats, count: Long): Values = stats.nested match {
      case Some(ArrayStats(minSize, maxSize, elementCount, elementStats)) =>
        CollectionSpec.array(sizes(minSize, maxSize), elementStats.map(elements(_, elementCount)))
      case _ => Values.All
    }
  }

  /** Sizes, keys and values; each of the latter over the maps' `entryCount` entries. */
  private final class MapSpecs(map: MapType) extends ValueSpecs {
    private val keys = of(map.keyType)
    private val entryValues = of(map.valueType)

    protected def values(stats: ColumnStats, count: Long): Values = stats.nested match {
      case Some(MapStats(minSize, maxSize, entryCount, keyStats, valueStats)) =>
        CollectionSpec.map(sizes(minSize, maxSize), keyStats.map(keys(_, entryCount)),
          valueStats.map(entryValues(_, entryCount)))
      case _ => Values.All
    }
  }

  /** The size range, unless the stats are inconsistent. */
  private def sizes(minSize: Int, maxSize: Int): Option[ResultSpec] =
    if (minSize < 0 || minSize > maxSize) None
    else Some(ResultSpec(nullable = false, fallible = false, Values.Within(minSize, maxSize)))
}

object PartSpecs {
  /** Types whose columns may carry [[JsonStats]]: VARIANT, and strings declared JSON. */
  def holdsJson(dt: DataType): Boolean = dt == VariantType || dt.isInstanceOf[StringType]
}
