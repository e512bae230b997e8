package sparkpersist.consolidate

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch

import sparkpersist.read.{PartFile, SelectedColumnVector}

/**
 * A [[Cancellation]] that hands out columnar batches: the same snapshot of the same parts, with
 * the batches of Spark's vectorized reader passed through and the rows that do not stand for a copy
 * left out, none of their values copied ([[SelectedColumnVector]]). The retracting parts are read
 * twice: row by row into the ledger first, then as batches once every inserted row has paid off what
 * it owes, each row kept as many times as its positive sum (the first time the row is met).
 *
 * Every part must be visible as of `asOf` as a whole (no row is filtered by time). Batches have the
 * columns of `updateSchema`; the `time` and `diff` of a row handed out are its update's (a
 * snapshot shows neither).
 *
 * @param updateSchema every data column, then time and diff: the layout of the parts' rows and batches
 * @param inShare      the updates of a part that belong to the task's share
 * @param checked      the updates of a part as the soft check sees them (verifying those it must)
 */
final class ColumnarCancellation(
    shard: String,
    updateSchema: StructType,
    asOf: Long,
    retracting: Seq[PartFile],
    inserting: Seq[PartFile],
    inShare: (PartFile, Iterator[InternalRow]) => Iterator[InternalRow],
    checked: (PartFile, Iterator[InternalRow]) => Iterator[InternalRow],
    rows: PartFile => Iterator[InternalRow],
    batches: PartFile => Iterator[ColumnarBatch],
    complete: Boolean) extends Iterator[ColumnarBatch] {

  private val ledger = new CancellationLedger(shard, updateSchema, asOf,
    retracting.iterator.flatMap(file => checked(file, inShare(file, rows(file)))), complete)

  /**
   * The batches of `file`, each row kept `copiesOf` times, of the rows `rowsOf` passes (it passes
   * rows through in order, so the position of the row it hands on is the last one it was given).
   */
  private def selected(file: PartFile, rowsOf: Iterator[InternalRow] => Iterator[InternalRow],
      copiesOf: InternalRow => Long): Iterator[ColumnarBatch] =
    batches(file).map { batch =>
      var positions = new Array[Int](batch.numRows)
      var size = 0
      var at = 0
      rowsOf(Iterator.range(0, batch.numRows).map { i => at = i; batch.getRow(i) }).foreach { u =>
        var copies = copiesOf(u)
        while (copies > 0) {
          if (size == positions.length) positions = java.util.Arrays.copyOf(positions, size * 2 + 1)
          positions(size) = at
          size += 1
          copies -= 1
        }
      }
      SelectedColumnVector.select(batch, positions, size)
    }.filter(_.numRows > 0)

  private lazy val all: Iterator[ColumnarBatch] = {
    ledger.load()
    val inserted = inserting.iterator.flatMap(file => selected(file, rows => checked(file, inShare(file, rows)),
      u => ledger.payOff(u, u.getLong(ledger.diffOrdinal))))
    // A row of another share is in no sum: claiming needs no share test (nor a second check).
    val remaining = retracting.iterator.flatMap(selected(_, rows => rows, ledger.claim))
    inserted ++ remaining ++ { ledger.checkNoneNegative(); Iterator.empty }
  }

  override def hasNext: Boolean = all.hasNext
  override def next(): ColumnarBatch = all.next()
}
