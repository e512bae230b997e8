package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.types.variant.Variant
import org.apache.spark.types.variant.VariantUtil.Type
import org.apache.spark.unsafe.types.UTF8String

/**
 * The stats of a VARIANT column: its null count and, as [[JsonStats]], what its documents hold
 * place by place (see [[JsonPlace]]). VARIANT values have no order, so there are no bounds.
 *
 * Each value is read as Spark's `variant_get` reads it: numbers of every VARIANT type (integers,
 * decimals, floats, doubles) become exact bounds, strings are `UTF8String.fromString` of the
 * decoded text, and dates, timestamps, binary and UUIDs are counted as `others`. With a
 * `castZone`, the strings of each place also get [[CastStats]] ([[JsonPlace]]).
 */
final class VariantCollector(boundChars: Int, limits: JsonLimits = JsonLimits.Default,
    castZone: Option[String] = None) extends StatsCollector {
  private val root = JsonPlace.root(limits, castZone)

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = {
    val v = row.getVariant(ordinal)
    VariantCollector.add(new Variant(v.getValue, v.getMetadata), root)
  }

  override protected def lower: Option[Any] = None
  override protected def upper: Option[Any] = None
  override protected def nested: Option[NestedStats] = Some(root.result(boundChars))
}

object VariantCollector {
  /** Reports `v` (and, where tracked, what it contains) to `place`. */
  def add(v: Variant, place: JsonPlace): Unit = v.getType match {
    case Type.OBJECT =>
      place.addObject()
      if (place.tracksChildren) {
        var i = 0
        val n = v.objectSize()
        while (i < n) {
          val field = v.getFieldAtIndex(i)
          val under = place.key(field.key)
          if (under != null) add(field.value, under)
          i += 1
        }
      }
    case Type.ARRAY =>
      val n = v.arraySize()
      place.addArray(n)
      val elements = place.elementPlace()
      if (elements != null) {
        var i = 0
        while (i < n) {
          add(v.getElementAtIndex(i), elements)
          i += 1
        }
      }
    case Type.NULL => place.addNull()
    case Type.BOOLEAN => place.addBoolean(v.getBoolean)
    case Type.LONG => place.addLong(v.getLong)
    case Type.DOUBLE => place.addDouble(v.getDouble)
    case Type.FLOAT => place.addDouble(v.getFloat.toDouble)
    case Type.DECIMAL => place.addDecimal(v.getDecimal)
    case Type.STRING => place.addString(UTF8String.fromString(v.getString))
    case _ => place.addOther()
  }
}
