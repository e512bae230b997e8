package sparkpersist.util

/**
 * Binary search for the end of a sorted sequence's prefix: given `holds(i)` true for the first
 * indices of `0 until size` and false for the rest (a value's position among sorted bounds, say),
 * the number of indices for which it holds, in `log2(size)` calls.
 */
object Prefix {
  def length(size: Int)(holds: Int => Boolean): Int = {
    var lo = 0
    var hi = size
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (holds(mid)) lo = mid + 1 else hi = mid
    }
    lo
  }
}
