package sparkpersist.consolidate

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types._

import sparkpersist.read.PartFile

/**
 * The per-row test of a [[RowShare.KeyRange]] over the updates of one part: whether an update's
 * key lies in the share's range, failing with [[PartStatsMismatch]] on a key outside the part's
 * span (the row could belong to a task that does not read the part). It runs once per row read
 * by a consolidation task, so keys stored as integers (integral types, dates, timestamps) are
 * compared as primitive longs; other types go through Spark's interpreted ordering.
 */
private[consolidate] sealed abstract class KeyTest extends (InternalRow => Boolean)

private[consolidate] object KeyTest {

  def apply(ranges: KeyRanges, index: Int, ordinal: Int, span: KeySpan, file: PartFile): KeyTest = {
    def mismatch(key: Any): Nothing = throw new PartStatsMismatch(file.path, ranges.column.name, key, span)
    integral(ranges.column.dataType) match {
      case Some(read) => new Integral(ranges, index, ordinal, span, read, mismatch)
      case None => new Interpreted(ranges, index, ordinal, span, mismatch)
    }
  }

  /**
   * How to read a key of `dataType` as a long, for the types whose Spark order is that of longs
   * (and whose equal values are equal longs).
   */
  def integral(dataType: DataType): Option[IntegralKey] = dataType match {
    case ByteType => Some((row, i) => row.getByte(i).toLong)
    case ShortType => Some((row, i) => row.getShort(i).toLong)
    case IntegerType | DateType => Some((row, i) => row.getInt(i).toLong)
    case LongType | TimestampType | TimestampNTZType => Some((row, i) => row.getLong(i))
    case _ => None
  }

  /** Reads a key as a long, unboxed (a `Function2` of a row would box its result on every row). */
  trait IntegralKey {
    def apply(row: InternalRow, ordinal: Int): Long
  }

  private def asLong(bound: Any): Long = bound.asInstanceOf[Number].longValue

  /** Range `index` holds `splits(index - 1) <= v < splits(index)`, unbounded at either end. */
  private final class Integral(ranges: KeyRanges, index: Int, ordinal: Int, span: KeySpan,
      read: IntegralKey, mismatch: Any => Nothing) extends KeyTest {
    private val nullsHere = index == 0
    private val from = if (index == 0) Long.MinValue else asLong(ranges.splits(index - 1))
    private val bounded = index < ranges.splits.size
    private val until = if (bounded) asLong(ranges.splits(index)) else Long.MaxValue
    private val lower = span.lower.fold(Long.MinValue)(asLong)
    private val upper = span.upper.fold(Long.MaxValue)(asLong)

    override def apply(update: InternalRow): Boolean =
      if (update.isNullAt(ordinal)) {
        if (!span.nulls) mismatch(null)
        nullsHere
      } else {
        val key = read(update, ordinal)
        if (!span.values || key < lower || key > upper) mismatch(key)
        key >= from && (!bounded || key < until)
      }
  }

  private final class Interpreted(ranges: KeyRanges, index: Int, ordinal: Int, span: KeySpan,
      mismatch: Any => Nothing) extends KeyTest {
    private val dataType = ranges.column.dataType
    private val ordering = TypeUtils.getInterpretedOrdering(dataType)

    override def apply(update: InternalRow): Boolean = {
      // Rows of columnar batches do not check for nulls in `get`.
      val key = if (update.isNullAt(ordinal)) null else update.get(ordinal, dataType)
      if (!span.holds(key, ordering)) mismatch(key)
      ranges.rangeOf(key) == index
    }
  }
}
