package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.{SpecializedGetters, UnsafeRow, XXH64}
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/**
 * A view of one string value's UTF-8 bytes where they lie, re-pointed at each value, so that
 * [[CastStatsCollector]] and [[MembershipCollector]] read most values without a `UTF8String` of
 * their own. In Spark 4.1 a
 * `UTF8String` that outlives the call creating it costs four volatile writes (its lazily
 * computed fields), about as much as reading a short value's shape; an `UnsafeRow`'s string is
 * read in place instead. [[string]] makes the value's `UTF8String`, once per value, for the
 * parsers that need one.
 */
private[stats] final class TextBytes {
  private var base: AnyRef = _
  private var offset = 0L
  private var size = 0
  private var asString: UTF8String = _

  /** Points at the string at `ordinal` of `row` (non-null); itself. */
  def of(row: SpecializedGetters, ordinal: Int): TextBytes = row match {
    case unsafe: UnsafeRow => // UnsafeRow.getUTF8String's own reading, without the object
      val offsetAndSize = unsafe.getLong(ordinal)
      point(unsafe.getBaseObject, unsafe.getBaseOffset + (offsetAndSize >> 32), offsetAndSize.toInt, null)
    case _ => of(row.getUTF8String(ordinal))
  }

  /** Points at `s`; itself. */
  def of(s: UTF8String): TextBytes = point(s.getBaseObject, s.getBaseOffset, s.numBytes(), s)

  private def point(base: AnyRef, offset: Long, size: Int, asString: UTF8String): TextBytes = {
    this.base = base
    this.offset = offset
    this.size = size
    this.asString = asString
    this
  }

  def numBytes: Int = size

  def getByte(i: Int): Byte = Platform.getByte(base, offset + i)

  /** The `length` bytes at `from` as a `UTF8String` (over the same bytes, which it must not outlive). */
  def slice(from: Int, length: Int): UTF8String = UTF8String.fromAddress(base, offset + from, length)

  /** The value's XXH64 hash with `seed`, as `XXH64.hashUTF8String` gives it. */
  def xxh64(seed: Long): Long = XXH64.hashUnsafeBytes(base, offset, size, seed)

  /** The value as a `UTF8String` (over the same bytes, which it must not outlive). */
  def string: UTF8String = {
    if (asString == null) asString = UTF8String.fromAddress(base, offset, size)
    asString
  }
}
