package sparkpersist.cluster

import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/**
 * An order-preserving fixed-width key of UTF8_BINARY strings: the 8 bytes after `prefix` (the
 * common prefix of a sample's values), big-endian, zero-padded. A string's key is a long whose
 * signed order agrees with Spark's byte order of the strings: `a < b` implies `key(a) <= key(b)`.
 * A string not starting with `prefix` keys below every string that does (`Long.MinValue`) or above
 * them (`Long.MaxValue`), as its bytes compare with the prefix. Values sharing a long prefix
 * (`customer-000001`, URLs of one host, ISO dates) then compare on the bytes that tell them apart,
 * as one long each.
 */
final class PrefixKey(prefix: Array[Byte]) {

  def key(s: UTF8String): Long = {
    val base = s.getBaseObject
    val offset = s.getBaseOffset
    val n = s.numBytes
    var i = 0
    while (i < prefix.length) {
      if (i == n) return Long.MinValue // a proper prefix of `prefix`: below every string starting with it
      val b = Platform.getByte(base, offset + i) & 0xff
      val p = prefix(i) & 0xff
      if (b != p) return if (b < p) Long.MinValue else Long.MaxValue
      i += 1
    }
    var key = 0L
    var j = 0
    while (j < PrefixKey.Width) {
      val b = if (i + j < n) Platform.getByte(base, offset + i + j) & 0xff else 0
      key = (key << 8) | b
      j += 1
    }
    key ^ Long.MinValue // unsigned byte order as signed long order
  }
}

object PrefixKey {
  /** Bytes per key after the common prefix. */
  val Width = 8

  /** The key of the strings of `sample` (any order; none: no prefix): after their longest common prefix. */
  def of(sample: Iterable[UTF8String]): PrefixKey = {
    val prefix = if (sample.isEmpty) Array.emptyByteArray else sample.map(_.getBytes).reduce(common)
    new PrefixKey(prefix)
  }

  private def common(a: Array[Byte], b: Array[Byte]): Array[Byte] =
    java.util.Arrays.copyOf(a, a.indices.find(i => i >= b.length || a(i) != b(i)).getOrElse(a.length))
}
