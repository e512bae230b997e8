package sparkpersist.stats

/**
 * One column's stats bytes (entries of [[BinaryStatsCodec.columnEntries]]) for a sequence of
 * parts, parts `first` to `first + size - 1` of a rollup (all of them, or one segment's), back to
 * back in one array, as a columnar rollup's binary column holds them: the bytes of the `i`-th
 * are `data(offsets(i)) until data(offsets(i + 1))`, none (empty) when the part has no stats for
 * the column. An encoded column's stats are never empty (they start with a null count and end a
 * field list), so empty means absent.
 */
final class StatsVector private (private[stats] val data: Array[Byte], offsets: Array[Int], val first: Int) {

  /** The number of parts. */
  def size: Int = offsets.length - 1

  /** Whether part `part` (of the rollup) is one of these. */
  def holds(part: Int): Boolean = part >= first && part - first < size

  private[stats] def offset(part: Int): Int = offsets(part - first)

  private[stats] def length(part: Int): Int = offsets(part - first + 1) - offsets(part - first)

  /** Part `part`'s bytes; None when it has no stats for the column. */
  def bytes(part: Int): Option[Array[Byte]] =
    if (length(part) == 0) None else Some(java.util.Arrays.copyOfRange(data, offset(part), offset(part) + length(part)))
}

object StatsVector {

  /**
   * Collects the bytes of parts one after another, from part `first` on: `expectedParts` of them,
   * as a rollup's segment holds, so the offsets are allocated once (more may be added); nothing
   * is allocated per part.
   */
  final class Builder(expectedParts: Int, first: Int = 0) {
    private var data = new Array[Byte](math.max(64, expectedParts * 16))
    private var offsets = new Array[Int](expectedParts + 1)
    private var parts = 0
    private var end = 0

    /** The next part's bytes: `length` bytes of `bytes` from `from` (0 for none). */
    def add(bytes: Array[Byte], from: Int, length: Int): this.type = {
      if (end + length > data.length) {
        val grown = math.max(data.length.toLong * 2, end.toLong + length)
        require(grown <= Int.MaxValue - 8, "a column's stats of one rollup exceed 2 GB")
        data = java.util.Arrays.copyOf(data, grown.toInt)
      }
      if (parts + 1 == offsets.length) offsets = java.util.Arrays.copyOf(offsets, offsets.length * 2)
      System.arraycopy(bytes, from, data, end, length)
      end += length
      parts += 1
      offsets(parts) = end
      this
    }

    /** The next part has no stats for the column. */
    def addNone(): this.type = add(Array.emptyByteArray, 0, 0)

    def result(): StatsVector = new StatsVector(if (end == data.length) data else java.util.Arrays.copyOf(data, end),
      if (parts + 1 == offsets.length) offsets else java.util.Arrays.copyOf(offsets, parts + 1), first)
  }

  /** `parts` parts from part `first` on, none with stats (a column whose bytes cannot be read). */
  def absent(first: Int, parts: Int): StatsVector = new StatsVector(Array.emptyByteArray, new Array[Int](parts + 1), first)
}
