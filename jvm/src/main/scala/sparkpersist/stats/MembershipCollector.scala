package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.types._

/**
 * Collects the [[MembershipFilter]] of one indexed column of one part while it is written: the
 * hash of every non-null value, deduplicated when the part is done. Past [[MaxValues]] hashes
 * it stops and the part gets no filter (readers keep it for point lookups, as without one).
 */
final class MembershipCollector(dataType: DataType) {
  require(MembershipFilter.supports(dataType), s"No membership filter for ${dataType.catalogString}")
  import MembershipCollector.MaxValues

  private var hashes = new Array[Long](16)
  private var size = 0
  private var overflow = false

  def update(row: SpecializedGetters, ordinal: Int): Unit =
    if (!overflow && !row.isNullAt(ordinal)) {
      val h = dataType match {
        case ByteType => MembershipFilter.hash(row.getByte(ordinal).toLong)
        case ShortType => MembershipFilter.hash(row.getShort(ordinal).toLong)
        case IntegerType | DateType => MembershipFilter.hash(row.getInt(ordinal).toLong)
        case LongType | TimestampType | TimestampNTZType => MembershipFilter.hash(row.getLong(ordinal))
        case FloatType => MembershipFilter.hashDouble(row.getFloat(ordinal).toDouble)
        case DoubleType => MembershipFilter.hashDouble(row.getDouble(ordinal))
        case _ => MembershipFilter.hash(row.getUTF8String(ordinal))
      }
      if (size == hashes.length) {
        if (size >= MaxValues) { overflow = true; hashes = Array.emptyLongArray; return }
        hashes = java.util.Arrays.copyOf(hashes, math.min(MaxValues, size * 2))
      }
      hashes(size) = h
      size += 1
    }

  /** The filter of the values seen, or None past [[MaxValues]]. */
  def result(): Option[MembershipFilter] =
    if (overflow) None
    else {
      val sorted = java.util.Arrays.copyOf(hashes, size)
      java.util.Arrays.sort(sorted)
      Some(MembershipFilter.of(sorted.distinct))
    }
}

object MembershipCollector {
  /** Most values hashed per part (8 bytes each while the part is written). */
  val MaxValues: Int = 4 << 20
}
