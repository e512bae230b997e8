package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.types.StringType
import org.apache.spark.unsafe.types.{ByteArray, UTF8String}

/**
 * Min and max of a UTF8_BINARY string column (Spark's binary order), reported as truncated
 * [[Bounds]] of at most `boundChars` code points. The running min/max are copied only when they
 * change, since the row's string may point into a reused buffer.
 *
 * With a `castZone`, also what the values become under casts ([[CastStatsCollector]], timestamps
 * parsed in that zone).
 */
final class StringCollector(boundChars: Int, castZone: Option[String] = None) extends StatsCollector {
  private var min: UTF8String = _
  private var max: UTF8String = _
  private val parsed = castZone.map(new CastStatsCollector(_)).orNull

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = {
    val v = row.getUTF8String(ordinal)
    if (min == null) { min = v.clone(); max = min }
    else if (v.binaryCompare(min) < 0) min = v.clone()
    else if (v.binaryCompare(max) > 0) max = v.clone()
    if (parsed != null) parsed.add(v)
  }

  override protected def casts: Option[CastStats] = if (parsed == null) None else parsed.result()

  override protected def lower: Option[Any] = Some(Bounds.stringLower(min, boundChars))
  override protected def upper: Option[Any] = Bounds.stringUpper(max, boundChars)
}

/** Min and max of a binary column (unsigned byte order), as truncated [[Bounds]]. */
final class BinaryCollector(boundBytes: Int) extends StatsCollector {
  private var min: Array[Byte] = _
  private var max: Array[Byte] = _

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = {
    val v = row.getBinary(ordinal)
    if (min == null) { min = v.clone(); max = min }
    else if (ByteArray.compareBinary(v, min) < 0) min = v.clone()
    else if (ByteArray.compareBinary(v, max) > 0) max = v.clone()
  }

  override protected def lower: Option[Any] = Some(Bounds.binaryLower(min, boundBytes))
  override protected def upper: Option[Any] = Bounds.binaryUpper(max, boundBytes)
}

/**
 * Min and max of a string column of a collation that [[CollatedStrings]] supports, under the
 * collation's comparator. A bound longer than `boundChars` code points is left out (unbounded on
 * that side): a prefix is not a bound under an ICU collation, and no bumped prefix bounds above.
 */
final class CollatedStringCollector(dataType: StringType, boundChars: Int) extends StatsCollector {
  private val order = CollatedStrings.comparator(dataType)
  private var min: UTF8String = _
  private var max: UTF8String = _

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = {
    val v = row.getUTF8String(ordinal)
    if (min == null) { min = v.clone(); max = min }
    else if (order.compare(v, min) < 0) min = v.clone()
    else if (order.compare(v, max) > 0) max = v.clone()
  }

  override protected def lower: Option[Any] = Option.when(min.numChars() <= boundChars)(min)
  override protected def upper: Option[Any] = Option.when(max.numChars() <= boundChars)(max)
}
