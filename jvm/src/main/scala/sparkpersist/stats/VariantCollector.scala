package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.types.variant.{Variant, VariantUtil}
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
  private val walk = new VariantCollector.Walk

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = {
    val v = row.getVariant(ordinal)
    walk.add(new Variant(v.getValue, v.getMetadata), root)
  }

  override protected def lower: Option[Any] = None
  override protected def upper: Option[Any] = None
  override protected def nested: Option[NestedStats] = Some(root.result(boundChars))
}

object VariantCollector {
  /**
   * Walks VARIANT values over their bytes, reading each as `Variant`'s getters do
   * (`VariantUtil`'s, whose bound checks raise the same errors) but without a `Variant` per value
   * inside: consecutive values that share their metadata (the common case: rows written by one
   * `parse_json` shape) decode each object key once, and ASCII strings are viewed in place, not
   * decoded to a Java string and encoded again (the same bytes: ASCII is its own UTF-8).
   */
  final class Walk {
    private var metadata: Array[Byte] = _
    private var keys = new Array[String](16)
    /** Ids below this may have a key decoded in `keys`. */
    private var decoded = 0

    /** Reports `v` (whose constructor checked its metadata's version and size) to `place`. */
    def add(v: Variant, place: JsonPlace): Unit = {
      val value = v.getValue
      val meta = v.getMetadata
      if (!java.util.Arrays.equals(meta, metadata)) {
        metadata = meta
        java.util.Arrays.fill(keys.asInstanceOf[Array[AnyRef]], 0, decoded, null)
        decoded = 0
      }
      at(value, 0, place)
    }

    /** The key of dictionary entry `id` of the current metadata. */
    private def key(id: Int): String =
      if (id >= Walk.MaxCachedKeys) VariantUtil.getMetadataKey(metadata, id)
      else {
        if (id >= keys.length) keys = java.util.Arrays.copyOf(keys, math.min(Walk.MaxCachedKeys, (id + 1) * 2))
        var k = keys(id)
        if (k == null) {
          k = VariantUtil.getMetadataKey(metadata, id)
          keys(id) = k
          decoded = math.max(decoded, id + 1)
        }
        k
      }

    private def at(value: Array[Byte], pos: Int, place: JsonPlace): Unit = VariantUtil.getType(value, pos) match {
      case Type.OBJECT =>
        place.addObject()
        if (place.tracksChildren) VariantUtil.handleObject[Unit](value, pos,
          (size, idSize, offsetSize, idStart, offsetStart, dataStart) => {
            var i = 0
            while (i < size) {
              val under = place.key(key(VariantUtil.readUnsigned(value, idStart + idSize * i, idSize)))
              if (under != null) at(value, dataStart + VariantUtil.readUnsigned(value, offsetStart + offsetSize * i, offsetSize), under)
              i += 1
            }
          })
      case Type.ARRAY =>
        VariantUtil.handleArray[Unit](value, pos, (size, offsetSize, offsetStart, dataStart) => {
          place.addArray(size)
          val elements = place.elementPlace()
          if (elements != null) {
            var i = 0
            while (i < size) {
              at(value, dataStart + VariantUtil.readUnsigned(value, offsetStart + offsetSize * i, offsetSize), elements)
              i += 1
            }
          }
        })
      case Type.NULL => place.addNull()
      case Type.BOOLEAN => place.addBoolean(VariantUtil.getBoolean(value, pos))
      case Type.LONG => place.addLong(VariantUtil.getLong(value, pos))
      case Type.DOUBLE => place.addDouble(VariantUtil.getDouble(value, pos))
      case Type.FLOAT => place.addDouble(VariantUtil.getFloat(value, pos).toDouble)
      case Type.DECIMAL => place.addDecimal(VariantUtil.getDecimal(value, pos))
      case Type.STRING => place.addString(string(value, pos))
      case _ => place.addOther()
    }

    /**
     * The string at `pos` as `UTF8String.fromString(VariantUtil.getString(value, pos))`: its bytes
     * in place when they are ASCII and within the value, else decoded and encoded as Spark does.
     */
    private def string(value: Array[Byte], pos: Int): UTF8String = {
      val header = value(pos) & 0xff
      val (start, length) =
        if ((header & VariantUtil.BASIC_TYPE_MASK) == VariantUtil.SHORT_STR) (pos + 1, header >> VariantUtil.BASIC_TYPE_BITS)
        else if (pos + 5 <= value.length) (pos + 5, VariantUtil.readUnsigned(value, pos + 1, 4))
        else (-1, 0)
      if (start < 0 || length < 0 || start + length > value.length || !ascii(value, start, length)) {
        UTF8String.fromString(VariantUtil.getString(value, pos))
      } else UTF8String.fromBytes(value, start, length)
    }

    private def ascii(bytes: Array[Byte], from: Int, length: Int): Boolean = {
      var i = from
      val end = from + length
      while (i < end && bytes(i) >= 0) i += 1
      i == end
    }
  }

  private object Walk {
    /** Most metadata keys decoded once per metadata; keys past it are decoded at each use. */
    val MaxCachedKeys: Int = 4096
  }
}
