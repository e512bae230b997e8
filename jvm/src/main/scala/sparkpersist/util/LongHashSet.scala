package sparkpersist.util

/**
 * A set of longs without boxing, for hot loops that test every row of a scan against a set of
 * values most rows are not in. Open addressing with linear probing in a power-of-two table kept
 * at most half full (0 marks an empty slot; whether 0 is in the set is a flag). In front of it, a
 * bitmap of 4 bits per slot (8 or more per value) with one bit set per value: a value whose bit is
 * clear is absent, decided from a bitmap small enough to stay in the CPU's cache, so most absent
 * values never touch the table (one cache miss each otherwise).
 */
final class LongHashSet {
  private var slots = new Array[Long](16)
  private var bits = new Array[Long](1)
  private var count = 0
  private var hasZero = false

  def size: Int = count + (if (hasZero) 1 else 0)

  def add(value: Long): Unit =
    if (value == 0L) hasZero = true
    else {
      if (2 * (count + 1) > slots.length) grow()
      insert(value)
    }

  def contains(value: Long): Boolean =
    if (value == 0L) hasZero
    else {
      val h = value * 0x9E3779B97F4A7C15L
      val bit = (h >>> 20).toInt & (bits.length * 64 - 1)
      (bits(bit >>> 6) & (1L << bit)) != 0 && {
        var i = (h >>> shift).toInt
        var found = false
        while (!found && slots(i) != 0L) {
          found = slots(i) == value
          i = (i + 1) & (slots.length - 1)
        }
        found
      }
    }

  /** Slots are chosen by the high bits of a multiplicative hash (Fibonacci hashing), the bitmap's bit by middle ones. */
  private def shift: Int = 64 - Integer.numberOfTrailingZeros(slots.length)

  private def insert(value: Long): Unit = {
    val h = value * 0x9E3779B97F4A7C15L
    var i = (h >>> shift).toInt
    while (slots(i) != 0L && slots(i) != value) i = (i + 1) & (slots.length - 1)
    if (slots(i) == 0L) {
      slots(i) = value
      count += 1
      val bit = (h >>> 20).toInt & (bits.length * 64 - 1)
      bits(bit >>> 6) |= 1L << bit
    }
  }

  private def grow(): Unit = {
    val old = slots
    slots = new Array[Long](old.length * 2)
    bits = new Array[Long](slots.length * 4 / 64)
    count = 0
    old.foreach(v => if (v != 0L) insert(v))
  }
}
