package sparkpersist.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * The rows of `file` a read keeps: not at a position it drops, and, when it keeps inserts only,
 * of positive diff. Rows and batches must come in file order (a read does), so each dropped
 * position is passed once. One per read of a file.
 *
 * @param positionOrdinal the ordinal of the rows' position in the file (-1: not read, nothing dropped)
 */
final class PositionalRows(file: PartFile, positionOrdinal: Int, diffOrdinal: Int) {
  private val dropped: Long => Boolean = if (file.dropped.isEmpty) _ => false else file.dropped.cursor()

  def keeps(row: InternalRow): Boolean =
    (!file.insertsOnly || row.getLong(diffOrdinal) > 0) && (positionOrdinal < 0 || !dropped(row.getLong(positionOrdinal)))

  /** `batch` without the rows left out; the batch itself when it keeps every row. */
  def of(batch: ColumnarBatch): ColumnarBatch = {
    val n = batch.numRows
    val kept = new Array[Int](n)
    val diffs = batch.column(diffOrdinal)
    val positions = if (positionOrdinal < 0) null else batch.column(positionOrdinal)
    var size = 0
    var i = 0
    while (i < n) {
      if ((!file.insertsOnly || diffs.getLong(i) > 0) && (positions == null || !dropped(positions.getLong(i)))) {
        kept(size) = i
        size += 1
      }
      i += 1
    }
    if (size == n) batch else SelectedColumnVector.select(batch, kept, size)
  }
}
