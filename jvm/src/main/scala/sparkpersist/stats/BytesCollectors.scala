package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.types.StringType
import org.apache.spark.unsafe.types.{ByteArray, UTF8String}

/**
 * Min and max of a UTF8_BINARY string column (Spark's binary order), reported as truncated
 * [[Bounds]] of at most `boundChars` code points: kept here ([[StringRange]]), or, when
 * `boundsFromFile`, taken from the part file's statistics ([[FileBounded]]).
 *
 * With a `castZone`, also what the values become under casts ([[CastStatsCollector]], timestamps
 * parsed in that zone).
 */
final class StringCollector(boundChars: Int, castZone: Option[String] = None, val boundsFromFile: Boolean = false)
    extends StatsCollector with FileBounded {
  private val range = if (boundsFromFile) null else new StringRange
  private var fileBounds: Option[FileBounds] = None
  private val parsed = castZone.map(new CastStatsCollector(_)).orNull

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = {
    if (range != null) range.add(row.getUTF8String(ordinal))
    if (parsed != null) parsed.add(row, ordinal)
  }

  override def useFileBounds(bounds: Option[FileBounds]): Unit = {
    require(boundsFromFile, "this collector keeps its own bounds")
    fileBounds = bounds
  }

  override protected def casts: Option[CastStats] = if (parsed == null) None else parsed.result()

  override protected def lower: Option[Any] =
    (if (range != null) Some(range.min) else fileBounds.map(_.min)).map(Bounds.stringLower(_, boundChars))
  override protected def upper: Option[Any] =
    (if (range != null) Some(range.max) else fileBounds.map(_.max)).flatMap(Bounds.stringUpper(_, boundChars))
}

/**
 * The least and greatest of some strings in Spark's binary order, each copied when it changes,
 * since a value may point into a reused row buffer.
 */
private[stats] final class StringRange {
  private var low: UTF8String = _
  private var high: UTF8String = _

  def add(v: UTF8String): Unit =
    if (low == null) { low = v.clone(); high = low }
    else if (v.binaryCompare(low) < 0) low = v.clone()
    else if (v.binaryCompare(high) > 0) high = v.clone()

  /** The least string added; only once one was. */
  def min: UTF8String = low

  /** The greatest string added; only once one was. */
  def max: UTF8String = high
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
