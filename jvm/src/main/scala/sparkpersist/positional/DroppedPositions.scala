package sparkpersist.positional

/**
 * The positions (row numbers in the file, from 0) of a part's rows that a snapshot read leaves
 * out, ascending and distinct. Shipped to the task that reads the part.
 */
final class DroppedPositions(private val sorted: Array[Long]) extends Serializable {
  require(DroppedPositions.ascending(sorted), "dropped positions must ascend")

  def size: Int = sorted.length

  def isEmpty: Boolean = sorted.isEmpty

  def foreach(f: Long => Unit): Unit = sorted.foreach(f)

  /** These positions and `other`'s (merged in one pass), or `None` if a position is in both. */
  def union(other: DroppedPositions): Option[DroppedPositions] = {
    val (a, b) = (sorted, other.sorted)
    val merged = new Array[Long](a.length + b.length)
    var (i, j, k) = (0, 0, 0)
    while (k < merged.length) {
      if (j == b.length || (i < a.length && a(i) < b(j))) { merged(k) = a(i); i += 1 }
      else if (i < a.length && a(i) == b(j)) return None
      else { merged(k) = b(j); j += 1 }
      k += 1
    }
    Some(new DroppedPositions(merged))
  }

  /**
   * A test of whether a position is dropped, for positions asked in ascending order (as a read
   * meets its rows; row groups skipped in between are passed over): one step per position.
   */
  def cursor(): Long => Boolean = {
    var at = 0
    position => {
      while (at < sorted.length && sorted(at) < position) at += 1
      at < sorted.length && sorted(at) == position
    }
  }

  override def equals(other: Any): Boolean = other match {
    case d: DroppedPositions => java.util.Arrays.equals(sorted, d.sorted)
    case _ => false
  }

  override def hashCode(): Int = java.util.Arrays.hashCode(sorted)

  override def toString: String = s"DroppedPositions(${sorted.length} rows)"
}

object DroppedPositions {
  val None = new DroppedPositions(Array.emptyLongArray)

  /** The positions of `unordered`, or `scala.None` if one of them is there twice. */
  def distinct(unordered: Array[Long]): Option[DroppedPositions] = {
    val sorted = unordered.sorted
    if (ascending(sorted)) Some(new DroppedPositions(sorted)) else scala.None
  }

  private def ascending(sorted: Array[Long]): Boolean = sorted.indices.drop(1).forall(i => sorted(i - 1) < sorted(i))
}
