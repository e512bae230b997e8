package sparkpersist.stats

import org.apache.spark.unsafe.types.UTF8String

/**
 * Truncated bounds for variable-length values, so a 20k-character string does not land in the
 * part's metadata.
 *
 * Strings are ordered as Spark orders UTF8_BINARY strings: by their UTF-8 bytes, which is the
 * order of their code points. A lower bound is a prefix of at most `n` code points (a prefix is
 * never greater than the value). An upper bound is the value itself when it fits, otherwise its
 * `n`-code-point prefix with the last code point incremented (skipping the surrogate range, and
 * carrying into the previous code point past U+10FFFF); every string starting with the prefix
 * is below it. When no increment exists (all code points U+10FFFF) there is no upper bound.
 * Prefixes are cut at code point boundaries, never inside a UTF-8 sequence. Strings that are not
 * valid UTF-8 get no truncated upper bound.
 *
 * Binary values are ordered as unsigned bytes; the same scheme applies with bytes for code
 * points (an all-0xFF prefix has no upper bound).
 */
object Bounds {
  private val MaxCodePoint = Character.MAX_CODE_POINT
  private val SurrogateFirst = Character.MIN_SURROGATE.toInt
  private val SurrogateLast = Character.MAX_SURROGATE.toInt

  def stringLower(min: UTF8String, n: Int): UTF8String =
    if (min.numChars() <= n) min else min.substring(0, n)

  def stringUpper(max: UTF8String, n: Int): Option[UTF8String] =
    if (max.numChars() <= n) Some(max)
    else if (!max.isValid) None
    else {
      val prefix = max.substring(0, n).toString
      val codePoints = prefix.codePoints().toArray
      var last = codePoints.length - 1
      while (last >= 0 && codePoints(last) == MaxCodePoint) last -= 1
      if (last < 0) None
      else {
        val bumped = codePoints(last) + 1
        codePoints(last) = if (bumped >= SurrogateFirst && bumped <= SurrogateLast) SurrogateLast + 1 else bumped
        Some(UTF8String.fromString(new String(codePoints, 0, last + 1)))
      }
    }

  def binaryLower(min: Array[Byte], n: Int): Array[Byte] =
    if (min.length <= n) min else java.util.Arrays.copyOf(min, n)

  def binaryUpper(max: Array[Byte], n: Int): Option[Array[Byte]] =
    if (max.length <= n) Some(max)
    else {
      var last = n - 1
      while (last >= 0 && max(last) == -1.toByte) last -= 1
      if (last < 0) None
      else {
        val bound = java.util.Arrays.copyOf(max, last + 1)
        bound(last) = (bound(last) + 1).toByte
        Some(bound)
      }
    }
}
