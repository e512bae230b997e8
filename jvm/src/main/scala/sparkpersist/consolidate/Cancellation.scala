package sparkpersist.consolidate

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, JoinedRow, UnsafeProjection}
import org.apache.spark.sql.types.StructType

import sparkpersist.read.PartFile

/**
 * Consolidation when few updates retract (a MERGE or DELETE that changed a small share of the
 * rows): the same snapshot as [[Consolidation]], without merging the runs, so one part is open at
 * a time however many runs overlap. The updates of the
 * parts that may retract (`retracting`) are summed by data row in memory; the insert-only parts
 * (`inserting`) are then streamed in any order, each of their rows emitted (as many copies as its
 * diff) unless a negative sum is left for it, which it pays off one copy at a time; last, the
 * rows whose sums stay positive are emitted with that many copies. Every row's copies come out
 * as the sum of its diffs says, so the multiset is the merge's; only the order differs (a
 * snapshot has none).
 *
 * Exact for every data row all of whose updates it sees (a task's [[RowShare]] sees them all).
 * A negative sum left at the end is a retraction without its insert: with every visible part
 * read (`complete`) it fails the read ([[NegativeMultiplicity]]), as the merge's; otherwise it is
 * dropped (see [[Consolidation]]). Memory is one entry per distinct row of the retracting parts:
 * the caller chooses this only when they are small (`spark.sparkpersist.read.cancelInMemoryRows`).
 *
 * @param updateSchema every data column, then time and diff (emitted rows have this layout)
 */
final class Cancellation(
    shard: String,
    updateSchema: StructType,
    asOf: Long,
    retracting: Seq[PartFile],
    inserting: Seq[PartFile],
    updates: PartFile => Iterator[InternalRow],
    complete: Boolean) extends Iterator[InternalRow] {

  private val ledger = new CancellationLedger(shard, updateSchema, asOf, retracting.iterator.flatMap(updates), complete)

  /** The inserting parts' rows, each as many times as it stands for after paying off what it owes. */
  private lazy val inserted: Iterator[InternalRow] = inserting.iterator.flatMap(updates).flatMap { u =>
    Multiplicity.repeat(u, ledger.payOff(u, u.getLong(ledger.diffOrdinal)))
  }

  /** Then the retracting parts' rows left with positive sums (checking that none stays negative). */
  private lazy val remaining: Iterator[InternalRow] = {
    val joined = new JoinedRow
    val projectSum = UnsafeProjection.create(updateSchema.fields.indices.map(i =>
      BoundReference(i, updateSchema(i).dataType, updateSchema(i).nullable)))
    ledger.remaining.flatMap { case (data, sum) =>
      Multiplicity.repeat(projectSum(joined(data, InternalRow(sum(0), sum(1)))).copy(), sum(1))
    }
  }

  // The retracting parts are read first.
  private lazy val all: Iterator[InternalRow] = { ledger.load(); inserted ++ remaining }

  override def hasNext: Boolean = all.hasNext
  override def next(): InternalRow = all.next()
}
