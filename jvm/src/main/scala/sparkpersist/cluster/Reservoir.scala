package sparkpersist.cluster

import scala.collection.mutable.ArrayBuffer
import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow

/**
 * A uniform sample of at most `capacity` rows of a stream (reservoir sampling, algorithm R),
 * seeded so that a task retried on the same input lays its rows out the same way. Rows kept are
 * copied: readers reuse theirs.
 */
final class Reservoir(capacity: Int, seed: Long) {
  require(capacity >= 1, s"a reservoir holds at least one row, got $capacity")
  private val random = new Random(seed)
  private val rows = ArrayBuffer.empty[InternalRow]
  private var seen = 0L

  def offer(row: InternalRow): Unit = {
    seen += 1
    if (rows.size < capacity) rows += row.copy()
    else {
      val slot = (random.nextDouble() * seen).toLong
      if (slot < capacity) rows(slot.toInt) = row.copy()
    }
  }

  def sample: IndexedSeq[InternalRow] = rows.toIndexedSeq
}
