package sparkpersist.read

import org.apache.spark.sql.types.LongType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

/**
 * The positions in its file of the rows a read returns, batch after batch: the row groups the
 * reader reads (`groups`: each one's first row's position in the file and its row count, in read
 * order, after its filters skipped whole groups) are read whole, none of their pages skipped, and
 * Spark's vectorized reader never lets a batch span two of them, so each batch's rows are
 * consecutive from a position found by counting. (Spark's own row index column does the same row
 * by row, boxing each position.) One per read of a file.
 */
final class RowPositions(path: String, groups: IndexedSeq[(Long, Long)]) {
  require(groups.forall(_._1 >= 0), s"the row groups of $path do not say where their rows start: rows cannot be told apart by position")
  private var group = 0
  private var into = 0L

  /** `batch` with a column of its rows' positions inserted at `ordinal`. */
  def insertInto(batch: ColumnarBatch, ordinal: Int): ColumnarBatch =
    RowPositions.inserted(batch, ordinal, new ConsecutiveLongs(next(batch.numRows), 1))

  /** The position of the first of the next `rows` rows, all in one row group. */
  private def next(rows: Int): Long = {
    while (group < groups.size && into == groups(group)._2) {
      group += 1
      into = 0
    }
    if (group >= groups.size || into + rows > groups(group)._2) {
      throw new IllegalStateException(s"Reading $path, a batch of $rows rows does not lie in the row groups " +
        s"${groups.mkString(", ")} (at group $group, row $into): rows cannot be told apart by position.")
    }
    val first = groups(group)._1 + into
    into += rows
    first
  }
}

object RowPositions {
  /** `batch` with a column of -1 (positions not read) inserted at `ordinal`. */
  def unknown(batch: ColumnarBatch, ordinal: Int): ColumnarBatch = inserted(batch, ordinal, new ConsecutiveLongs(-1L, 0))

  private def inserted(batch: ColumnarBatch, ordinal: Int, column: ColumnVector): ColumnarBatch =
    new ColumnarBatch(Array.tabulate[ColumnVector](batch.numCols + 1) { i =>
      if (i < ordinal) batch.column(i) else if (i == ordinal) column else batch.column(i - 1)
    }, batch.numRows)
}

/** The longs `first`, `first + step`, … of a batch's rows: never null. */
private[sparkpersist] final class ConsecutiveLongs(first: Long, step: Int) extends NeverNullVector(LongType) {
  override def getLong(rowId: Int): Long = first + step * rowId
}
