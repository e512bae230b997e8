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
 * @param inShare      whether an update of a part belongs to the task's share
 * @param check        the updates of a part as the soft check sees them, verifying those it must (soft mode)
 */
final class ColumnarCancellation(
    shard: String,
    updateSchema: StructType,
    asOf: Long,
    retracting: Seq[PartFile],
    inserting: Seq[PartFile],
    inShare: PartFile => InternalRow => Boolean,
    check: Option[(PartFile, Iterator[InternalRow]) => Iterator[InternalRow]],
    rows: PartFile => Iterator[InternalRow],
    batches: PartFile => Iterator[ColumnarBatch],
    complete: Boolean) extends Iterator[ColumnarBatch] {

  private def checked(file: PartFile, updates: Iterator[InternalRow]): Iterator[InternalRow] =
    check.fold(updates)(_(file, updates))

  private val ledger = new CancellationLedger(shard, updateSchema, asOf,
    retracting.iterator.flatMap(file => checked(file, rows(file).filter(inShare(file)))), complete)

  /**
   * The batches of `file`, each row that `keeps` kept `copiesOf` times, verified by the soft check
   * when `verified`. This runs for every row a task reads: without a check, a plain loop.
   */
  private def selected(file: PartFile, keeps: InternalRow => Boolean, verified: Boolean,
      copiesOf: InternalRow => Long): Iterator[ColumnarBatch] =
    batches(file).map { batch =>
      val n = batch.numRows
      val selection = new Selection(n)
      if (verified && check.isDefined) {
        // The check passes rows on in order: the row it hands on is the last one it was given.
        var at = 0
        checked(file, Iterator.range(0, n).map { i => at = i; batch.getRow(i) }.filter(keeps))
          .foreach(u => selection.add(at, copiesOf(u)))
      } else {
        var i = 0
        while (i < n) {
          val u = batch.getRow(i)
          if (keeps(u)) selection.add(i, copiesOf(u))
          i += 1
        }
      }
      SelectedColumnVector.select(batch, selection.positions, selection.size)
    }.filter(_.numRows > 0)

  private lazy val all: Iterator[ColumnarBatch] = {
    ledger.load()
    val inserted = inserting.iterator.flatMap(file => selected(file, inShare(file), verified = true,
      u => ledger.payOff(u, u.getLong(ledger.diffOrdinal))))
    // A row of another share is in no sum: the share test only spares the lookup (no second check).
    val remaining = retracting.iterator.flatMap(file => selected(file, inShare(file), verified = false, ledger.claim))
    inserted ++ remaining ++ { ledger.checkNoneNegative(); Iterator.empty }
  }

  override def hasNext: Boolean = all.hasNext
  override def next(): ColumnarBatch = all.next()
}

/** The positions of a batch's rows kept, a row once per copy. */
private final class Selection(rows: Int) {
  var positions = new Array[Int](rows)
  var size = 0

  def add(at: Int, copies: Long): Unit = {
    var left = copies
    while (left > 0) {
      if (size == positions.length) positions = java.util.Arrays.copyOf(positions, size * 2 + 1)
      positions(size) = at
      size += 1
      left -= 1
    }
  }
}
