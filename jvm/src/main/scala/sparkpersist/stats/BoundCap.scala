package sparkpersist.stats

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Shortens string and binary bounds to a cap, wherever they are in a column's stats: its own
 * bounds, and those of struct fields, array elements, map keys and values, and JSON strings.
 * A lower bound becomes its prefix, an upper bound its bumped prefix or nothing ([[Bounds]]), so
 * capped stats admit every value the original stats admit.
 *
 * Only bounds whose order [[Bounds]] knows are touched: UTF8_BINARY strings (in code points),
 * binary (in bytes), and JSON strings. Bounds of collated strings, or of nested stats whose shape
 * does not match the column's type, are left as they are.
 */
private[stats] object BoundCap {

  private sealed trait Kind
  private case object Utf8 extends Kind
  private case object Bytes extends Kind

  /** A function applied to each string or binary bound: (kind, bound, is it an upper bound). */
  private type Rewrite = (Kind, Any, Boolean) => Option[Any]

  /** `stats` (of a column of type `dataType`) with every string/binary bound cut to `cap`. */
  def apply(stats: ColumnStats, dataType: DataType, cap: Int): ColumnStats =
    column(stats, dataType, {
      case (Utf8, s: UTF8String, false) => Some(Bounds.stringLower(s, cap))
      case (Utf8, s: UTF8String, true) => Bounds.stringUpper(s, cap)
      case (Bytes, b: Array[Byte], false) => Some(Bounds.binaryLower(b, cap))
      case (Bytes, b: Array[Byte], true) => Bounds.binaryUpper(b, cap)
      case (_, other, _) => Some(other)
    })

  /** Length of the longest string/binary bound of `stats` (0 when it has none). */
  def longest(stats: ColumnStats, dataType: DataType): Int = {
    var max = 0
    column(stats, dataType, { (kind, bound, _) =>
      val length = (kind, bound) match {
        case (Utf8, s: UTF8String) => s.numChars()
        case (Bytes, b: Array[Byte]) => b.length
        case _ => 0
      }
      max = math.max(max, length)
      Some(bound)
    })
    max
  }

  private def kindOf(dataType: DataType): Option[Kind] = dataType match {
    case s: StringType if s.collationId == StringType.collationId => Some(Utf8)
    case BinaryType => Some(Bytes)
    case _ => None
  }

  private def column(c: ColumnStats, dataType: DataType, f: Rewrite): ColumnStats = {
    val kind = kindOf(dataType)
    def bound(b: Option[Any], upper: Boolean) = kind.fold(b)(k => b.flatMap(f(k, _, upper)))
    c.copy(lower = bound(c.lower, upper = false), upper = bound(c.upper, upper = true),
      nested = c.nested.map(nested(_, dataType, f)))
  }

  private def nested(n: NestedStats, dataType: DataType, f: Rewrite): NestedStats = (n, dataType) match {
    case (s: StructStats, t: StructType) =>
      StructStats(s.fields.map { case (name, c) =>
        name -> t.fields.find(_.name == name).fold(c)(field => column(c, field.dataType, f))
      })
    case (a: ArrayStats, t: ArrayType) => a.copy(elements = a.elements.map(column(_, t.elementType, f)))
    case (m: MapStats, t: MapType) =>
      m.copy(keys = m.keys.map(column(_, t.keyType, f)), values = m.values.map(column(_, t.valueType, f)))
    case (j: JsonStats, _) => json(j, f)
    case _ => n
  }

  /** Recurses with a loop and a match rather than `map`s: documents may be a thousand levels deep. */
  private def json(j: JsonStats, f: Rewrite): JsonStats = {
    val s = j.strings
    val keys = Map.newBuilder[String, JsonStats]
    val it = j.objects.keys.iterator
    while (it.hasNext) {
      val (k, v) = it.next()
      keys += k -> json(v, f)
    }
    val elements = j.arrays.elements match {
      case Some(e) => Some(json(e, f))
      case None => None
    }
    j.copy(
      strings = s.copy(lower = s.lower.flatMap(f(Utf8, _, false)), upper = s.upper.flatMap(f(Utf8, _, true))),
      objects = j.objects.copy(keys = keys.result()),
      arrays = j.arrays.copy(elements = elements))
  }
}
