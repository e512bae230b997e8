package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.XXH64
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/**
 * Which values one part's column may hold, for point lookups (`=`, `IN`, `<=>`) that min/max
 * bounds cannot answer on high-cardinality columns. Values are hashed ([[MembershipFilter.hash]]);
 * [[mayContain]] never answers false for a hash that was added (no false negatives), and may
 * answer true for one that was not.
 *
 *  - [[MembershipFilter.Exact]]: the sorted distinct hashes, when the part has at most
 *    [[MembershipFilter.ExactLimit]] distinct values (false positives only on 64-bit collisions);
 *  - [[MembershipFilter.Bloom]]: a Bloom filter of `k` probes (double hashing of the 64-bit hash)
 *    over `bits.length * 64` bits, sized for about 1% false positives and at most
 *    [[MembershipFilter.MaxBloomBytes]] (past that, with the number of probes that minimises
 *    false positives for the bits it has).
 */
sealed trait MembershipFilter {
  def mayContain(hash: Long): Boolean
}

object MembershipFilter {

  /** Most distinct values kept as an exact hash set. */
  val ExactLimit: Int = 64

  /** Largest Bloom filter, in bytes of bits. */
  val MaxBloomBytes: Int = 8192

  private val BitsPerValue = 10
  private val Probes = 7
  private val Seed = 42L

  final case class Exact(hashes: Array[Long]) extends MembershipFilter {
    def mayContain(hash: Long): Boolean = java.util.Arrays.binarySearch(hashes, hash) >= 0
    override def equals(o: Any): Boolean = o match {
      case e: Exact => java.util.Arrays.equals(hashes, e.hashes)
      case _ => false
    }
    override def hashCode(): Int = java.util.Arrays.hashCode(hashes)
  }

  final case class Bloom(probes: Int, bits: Array[Long]) extends MembershipFilter {
    def mayContain(hash: Long): Boolean = {
      val n = bits.length.toLong * 64
      var i = 0
      while (i < probes) {
        val bit = probe(hash, i, n)
        if ((bits((bit >>> 6).toInt) & (1L << (bit & 63))) == 0) return false
        i += 1
      }
      true
    }
    override def equals(o: Any): Boolean = o match {
      case b: Bloom => probes == b.probes && java.util.Arrays.equals(bits, b.bits)
      case _ => false
    }
    override def hashCode(): Int = java.util.Arrays.hashCode(bits)
  }

  /** The filter of a set of distinct hashes (sorted ascending). */
  def of(sortedDistinct: Array[Long]): MembershipFilter =
    if (sortedDistinct.length <= ExactLimit) Exact(sortedDistinct)
    else {
      val words = math.min(MaxBloomBytes / 8L, (sortedDistinct.length.toLong * BitsPerValue + 63) / 64).toInt
      val bits = new Array[Long](words)
      val n = words.toLong * 64
      // ln 2 bits per value minimise false positives: 7 probes at the 10 bits per value of an
      // uncapped filter, fewer in a capped one (2 at 8 KB for 20,000 values: 21% false positives instead of 41%).
      val probes = math.max(1, math.min(Probes, math.round(n.toDouble / sortedDistinct.length * math.log(2)).toInt))
      sortedDistinct.foreach { h =>
        var i = 0
        while (i < probes) {
          val bit = probe(h, i, n)
          bits((bit >>> 6).toInt) |= 1L << (bit & 63)
          i += 1
        }
      }
      Bloom(probes, bits)
    }

  private def probe(hash: Long, i: Int, n: Long): Long = {
    val h1 = hash.toInt
    val h2 = (hash >>> 32).toInt
    java.lang.Integer.toUnsignedLong(h1 + i * h2) % n
  }

  /**
   * Whether values of `dt` get filters: integral numbers, dates, timestamps, floats, decimals
   * (hashed without trailing zeros, so a widened column's `1.0` finds the `1.00` of older parts),
   * strings in UTF8_BINARY, whose SQL equality is equality of the hashed form, and strings of the
   * other collations, hashed by their sort key ([[hasher]], [[CollatedStrings]]).
   */
  def supports(dt: DataType): Boolean = dt match {
    case ByteType | ShortType | IntegerType | LongType | DateType | TimestampType | TimestampNTZType => true
    case FloatType | DoubleType | _: DecimalType => true
    case s: StringType => s.collationId == StringType.collationId || CollatedStrings.supports(s)
    case _ => false
  }

  /**
   * The hash of non-null internal values of `dt` (a [[supports supported]] type): [[hash]], or for
   * a collated string the hash of its sort key, so that strings the collation finds equal hash alike.
   */
  def hasher(dt: DataType): Any => Long = dt match {
    case s: StringType if CollatedStrings.supports(s) =>
      v => hashCollated(v.asInstanceOf[UTF8String], s.collationId)
    case _ => hash
  }

  /** The hash of a string of a collation [[CollatedStrings]] supports: of its sort key. */
  def hashCollated(s: UTF8String, collationId: Int): Long = {
    val key = CollatedStrings.sortKey(s, collationId)
    XXH64.hashUnsafeBytes(key, Platform.BYTE_ARRAY_OFFSET, key.length, Seed + 3)
  }

  /**
   * The hash of a non-null Catalyst internal value of a supported type: SQL-equal values hash
   * alike (integral values as longs, `-0.0` as `0.0`, every NaN as one NaN, floats as doubles).
   */
  def hash(v: Any): Long = v match {
    case s: UTF8String => hashString(s)
    case d: Double => hashDouble(d)
    case f: Float => hashDouble(f.toDouble)
    case i: Int => hashLong(i.toLong)
    case l: Long => hashLong(l)
    case s: Short => hashLong(s.toLong)
    case b: Byte => hashLong(b.toLong)
    case d: Decimal => hashDecimal(d)
    case other => throw new IllegalArgumentException(s"No membership hash for ${other.getClass.getName}")
  }

  /** [[hash]] of a UTF8_BINARY string. */
  def hashString(s: UTF8String): Long = XXH64.hashUTF8String(s, Seed)

  /** [[hash]] of an integral value, unboxed. */
  def hashLong(l: Long): Long = XXH64.hashLong(l, Seed)

  /** [[hashString]] of a string read where it lies. */
  private[stats] def hashText(t: TextBytes): Long = t.xxh64(Seed)

  /** A decimal by its value alone: `1.0` and `1.00` (equal in SQL, of different scales) hash alike. */
  def hashDecimal(d: Decimal): Long = {
    val v = d.toJavaBigDecimal.stripTrailingZeros
    val unscaled = v.unscaledValue
    if (unscaled.bitLength < 64) XXH64.hashLong(unscaled.longValue, Seed + 2 + v.scale)
    else {
      val bytes = unscaled.toByteArray
      XXH64.hashUnsafeBytes(bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length, Seed + 2 + v.scale)
    }
  }

  def hashDouble(d: Double): Long =
    if (d.isNaN) XXH64.hashLong(0x7ff8000000000000L, Seed + 1)
    else XXH64.hashLong(java.lang.Double.doubleToLongBits(if (d == 0.0) 0.0 else d), Seed + 1)
}
