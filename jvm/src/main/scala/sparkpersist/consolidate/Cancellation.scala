package sparkpersist.consolidate

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, JoinedRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{BooleanType, DateType, NumericType, StringType, StructType, TimestampNTZType, TimestampType}

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

  private val diffOrdinal = updateSchema.length - 1
  private val timeOrdinal = diffOrdinal - 1
  private val projectData = UnsafeProjection.create((0 until timeOrdinal).map(i =>
    BoundReference(i, updateSchema(i).dataType, updateSchema(i).nullable)))

  /** The retracting parts' updates summed by data row: (time of the first, sum of diffs). */
  private lazy val sums: mutable.HashMap[UnsafeRow, Array[Long]] = {
    val out = mutable.HashMap.empty[UnsafeRow, Array[Long]]
    retracting.foreach(file => updates(file).foreach { u =>
      val data = projectData(u)
      out.get(data) match {
        case Some(sum) => sum(1) += u.getLong(diffOrdinal)
        case None => out.update(data.copy(), Array(u.getLong(timeOrdinal), u.getLong(diffOrdinal)))
      }
    })
    out
  }

  /** How many negative sums are left to pay off: while none, inserted rows are not looked up. */
  private var owed = 0L

  /**
   * The first column's values among the rows with negative sums, when it has an atomic type
   * (equal values are equal bytes, or coarser): an inserted row whose value is not among them
   * owes nothing, and is not projected and looked up.
   */
  private val firstType = updateSchema(0).dataType
  private val firstValues: Option[java.util.HashSet[Any]] = firstType match {
    case _: NumericType | _: StringType | BooleanType | DateType | TimestampType | TimestampNTZType => Some(new java.util.HashSet[Any])
    case _ => None
  }
  private var nullOwed = false

  private def mayOwe(u: InternalRow): Boolean = firstValues.forall { values =>
    if (u.isNullAt(0)) nullOwed else values.contains(u.get(0, firstType))
  }

  /** The inserting parts' rows, each as many times as it stands for after paying off what it owes. */
  private lazy val inserted: Iterator[InternalRow] = inserting.iterator.flatMap(updates).flatMap { u =>
    var copies = u.getLong(diffOrdinal)
    if (owed > 0 && mayOwe(u)) sums.get(projectData(u)).foreach { sum =>
      if (sum(1) < 0) {
        val paid = math.min(copies, -sum(1))
        sum(1) += paid
        copies -= paid
        if (sum(1) == 0) owed -= 1
      }
    }
    Multiplicity.repeat(u, copies)
  }

  /** Then the retracting parts' rows left with positive sums (checking that none stays negative). */
  private lazy val remaining: Iterator[InternalRow] = {
    val joined = new JoinedRow
    val projectSum = UnsafeProjection.create(updateSchema.fields.indices.map(i =>
      BoundReference(i, updateSchema(i).dataType, updateSchema(i).nullable)))
    sums.iterator.flatMap { case (data, sum) =>
      if (sum(1) < 0 && complete) throw new NegativeMultiplicity(shard, asOf, sum(1))
      if (sum(1) <= 0) Iterator.empty
      else Multiplicity.repeat(projectSum(joined(data, InternalRow(sum(0), sum(1)))).copy(), sum(1))
    }
  }

  private lazy val all: Iterator[InternalRow] = {
    // The retracting parts are read first.
    sums.foreach { case (data, sum) =>
      if (sum(1) < 0) {
        owed += 1
        firstValues.foreach(values => if (data.isNullAt(0)) nullOwed = true else values.add(data.get(0, firstType)))
      }
    }
    inserted ++ remaining
  }

  override def hasNext: Boolean = all.hasNext
  override def next(): InternalRow = all.next()
}
