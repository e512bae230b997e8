package sparkpersist.consolidate

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{BooleanType, NumericType, StringType, StructType}

import sparkpersist.util.LongHashSet

/**
 * What a [[Cancellation]] holds in memory: the updates of the parts that may retract, summed by
 * data row (time of the first, sum of diffs), and the inserted rows' payment of the negative sums.
 * Rows are streamed past it in any order, row by row or from columnar batches.
 *
 * @param updateSchema every data column, then time and diff
 * @param retracting   the updates of the parts that may retract, read once, when first needed
 */
private[consolidate] final class CancellationLedger(shard: String, updateSchema: StructType, asOf: Long,
    retracting: => Iterator[InternalRow], complete: Boolean) {

  val diffOrdinal: Int = updateSchema.length - 1
  val timeOrdinal: Int = diffOrdinal - 1
  private val projectData = UnsafeProjection.create((0 until timeOrdinal).map(i =>
    BoundReference(i, updateSchema(i).dataType, updateSchema(i).nullable)))

  /** The retracting parts' updates summed by data row: (time of the first, sum of diffs). */
  private lazy val sums: mutable.HashMap[UnsafeRow, Array[Long]] = {
    val out = mutable.HashMap.empty[UnsafeRow, Array[Long]]
    retracting.foreach { u =>
      val data = projectData(u)
      out.get(data) match {
        case Some(sum) => sum(1) += u.getLong(diffOrdinal)
        case None => out.update(data.copy(), Array(u.getLong(timeOrdinal), u.getLong(diffOrdinal)))
      }
    }
    out.foreach { case (data, sum) =>
      if (sum(1) < 0) {
        owed += 1
        owe(data)
      }
    }
    out
  }

  /** How many negative sums are left to pay off: while none, inserted rows are not looked up. */
  private var owed = 0L

  /**
   * The first column's values among the rows with negative sums, when it has an atomic type
   * (equal values are equal bytes, or coarser): an inserted row whose value is not among them
   * owes nothing, and is not projected and looked up. Integral values (and dates, timestamps) are
   * held unboxed: this runs for every inserted row.
   */
  private val firstType = updateSchema(0).dataType
  private val firstIntegral = KeyTest.integral(firstType)
  private val firstLongs = new LongHashSet
  private val firstValues: Option[java.util.HashSet[Any]] = firstType match {
    case _ if firstIntegral.isDefined => None
    case _: NumericType | _: StringType | BooleanType => Some(new java.util.HashSet[Any])
    case _ => None
  }
  private var nullOwed = false

  private def owe(data: UnsafeRow): Unit =
    if (data.isNullAt(0)) nullOwed = true
    else firstIntegral match {
      case Some(read) => firstLongs.add(read(data, 0))
      case None => firstValues.foreach(_.add(data.get(0, firstType)))
    }

  private def mayOwe(u: InternalRow): Boolean =
    if (u.isNullAt(0)) nullOwed
    else firstIntegral match {
      case Some(read) => firstLongs.contains(read(u, 0))
      case None => firstValues.forall(_.contains(u.get(0, firstType)))
    }

  /** Reads the retracting parts now (before the first inserted row: their sums must be complete). */
  def load(): Unit = sums

  /**
   * How many of the `copies` that inserted update `u` (of a part without retractions) stands for
   * are left once its row paid off what its negative sum still owes.
   */
  def payOff(u: InternalRow, copies: Long): Long =
    if (owed == 0 || copies <= 0 || !mayOwe(u)) copies
    else sums.get(projectData(u)) match {
      case Some(sum) if sum(1) < 0 =>
        val paid = math.min(copies, -sum(1))
        sum(1) += paid
        if (sum(1) == 0) owed -= 1
        copies - paid
      case _ => copies
    }

  /**
   * How many copies the row of retracting update `u` stands for once every inserted row paid: its
   * positive sum the first time one of its inserts is met, then 0 (the row is claimed). A row left
   * with a positive sum has an insert among the retracting parts: retractions are not looked up.
   */
  def claim(u: InternalRow): Long =
    if (u.getLong(diffOrdinal) <= 0) 0
    else sums.get(projectData(u)) match {
      case Some(sum) if sum(1) > 0 =>
        val copies = sum(1)
        sum(1) = 0
        copies
      case _ => 0
    }

  /**
   * Every row left with a positive sum, as an update (data, time of the first, sum), once every
   * inserted row paid ([[checkNoneNegative]] first).
   */
  def remaining: Iterator[(UnsafeRow, Array[Long])] = {
    checkNoneNegative()
    sums.iterator.filter(_._2(1) > 0)
  }

  /** Fails the read if a row is left retracted more often than inserted while every visible part was read. */
  def checkNoneNegative(): Unit = if (complete) sums.valuesIterator.find(_(1) < 0).foreach { sum =>
    throw new NegativeMultiplicity(shard, asOf, sum(1))
  }
}
