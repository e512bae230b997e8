package sparkpersist.cluster

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types.DataType

import sparkpersist.util.Prefix

/**
 * One clustering column's coordinate on the curve: the rank of a value among `boundaries`
 * (ascending, distinct values of the column, by Spark's ordering of its type: NaN above every
 * other double, -0.0 equal to 0.0, strings by their UTF-8 bytes), spread evenly over
 * `0 until 2^bits`. Null is 0; a value at or above the k-th boundary and below the next ranks k + 1.
 * Spreading gives a column of 20 values the same weight in the curve's top bits as one of
 * millions, which ranks alone would bury in the low bits.
 */
final class ColumnRanks(dataType: DataType, boundaries: IndexedSeq[Any], bits: Int) {
  private val ordering = TypeUtils.getInterpretedOrdering(dataType)
  private val ranks = boundaries.size + 2 // null, below the first boundary, and one per boundary
  private val cells = (1L << bits) - 1

  /** The coordinate of the value at `ordinal` of `row`. */
  def coordinate(row: InternalRow, ordinal: Int): Int =
    if (row.isNullAt(ordinal)) 0
    else ((rank(row.get(ordinal, dataType)) * cells) / (ranks - 1)).toInt

  /** 1 + the number of boundaries at or below `value`. */
  private def rank(value: Any): Long = Prefix.length(boundaries.size)(i => ordering.lteq(boundaries(i), value)) + 1L
}

object ColumnRanks {
  /**
   * The ranks of a column from a sample of its non-null values (any order): every distinct value
   * when there are fewer than `2^bits - 1`, else that many quantiles.
   */
  def of(dataType: DataType, sample: IndexedSeq[Any], bits: Int): ColumnRanks = {
    val ordering = TypeUtils.getInterpretedOrdering(dataType)
    val sorted = sample.sorted(ordering)
    val distinct = dedupe(sorted, ordering)
    val most = (1 << bits) - 2
    val boundaries =
      if (distinct.size <= most) distinct
      else dedupe((1 to most).map(k => sorted(((k.toLong * sorted.size) / (most + 1)).toInt)), ordering)
    new ColumnRanks(dataType, boundaries, bits)
  }

  private def dedupe(sorted: IndexedSeq[Any], ordering: Ordering[Any]): IndexedSeq[Any] =
    sorted.iterator.zipWithIndex.collect {
      case (v, i) if i == 0 || ordering.compare(sorted(i - 1), v) != 0 => v
    }.toIndexedSeq
}
