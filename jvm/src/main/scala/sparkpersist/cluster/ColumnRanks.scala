package sparkpersist.cluster

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.util.Prefix

/**
 * One clustering column's coordinate on the curve: the rank of a value among `boundaries`
 * (ascending, distinct values of the column, by Spark's ordering of its type: NaN above every
 * other double, -0.0 equal to 0.0, strings by their UTF-8 bytes), spread evenly over
 * `0 until 2^bits`. Null is 0; a value at or above the k-th boundary and below the next ranks k + 1.
 * Spreading gives a column of 20 values the same weight in the curve's top bits as one of
 * millions, which ranks alone would bury in the low bits.
 *
 * UTF8_BINARY strings are ranked by their [[PrefixKey]] (the 8 bytes after the sample's common
 * prefix) among the sample's keys: one long comparison a step, whatever prefix the values share.
 */
sealed abstract class ColumnRanks(boundaries: Int, bits: Int) {
  private val ranks = boundaries + 2 // null, below the first boundary, and one per boundary
  private val cells = (1L << bits) - 1

  /** The coordinate of the value at `ordinal` of `row`. */
  def coordinate(row: InternalRow, ordinal: Int): Int =
    if (row.isNullAt(ordinal)) 0 else ((rank(row, ordinal) * cells) / (ranks - 1)).toInt

  /** 1 + the number of boundaries at or below the (non-null) value at `ordinal` of `row`. */
  protected def rank(row: InternalRow, ordinal: Int): Long
}

object ColumnRanks {
  /**
   * The ranks of a column from a sample of its non-null values (any order): every distinct value
   * (or key, for strings) when there are fewer than `2^bits - 1`, else that many quantiles.
   */
  def of(dataType: DataType, sample: IndexedSeq[Any], bits: Int): ColumnRanks = dataType match {
    case s: StringType if s.collationId == StringType.collationId =>
      val strings = sample.map(_.asInstanceOf[UTF8String])
      val key = PrefixKey.of(strings)
      new KeyRanks(key, boundaries(strings.map(key.key), Ordering.Long, bits).toArray, bits)
    case _ =>
      new ValueRanks(dataType, boundaries(sample, TypeUtils.getInterpretedOrdering(dataType), bits), bits)
  }

  /** Whole values ranked by Spark's ordering of their type. */
  private final class ValueRanks(dataType: DataType, boundaries: IndexedSeq[Any], bits: Int)
    extends ColumnRanks(boundaries.size, bits) {
    private val ordering = TypeUtils.getInterpretedOrdering(dataType)
    protected def rank(row: InternalRow, ordinal: Int): Long = {
      val value = row.get(ordinal, dataType)
      Prefix.length(boundaries.size)(i => ordering.lteq(boundaries(i), value)) + 1L
    }
  }

  /** UTF8_BINARY strings ranked by their prefix keys. */
  private final class KeyRanks(key: PrefixKey, boundaries: Array[Long], bits: Int)
    extends ColumnRanks(boundaries.length, bits) {
    protected def rank(row: InternalRow, ordinal: Int): Long = {
      val k = key.key(row.getUTF8String(ordinal))
      Prefix.length(boundaries.length)(boundaries(_) <= k) + 1L
    }
  }

  /** Every distinct value of the sample when few, else `2^bits - 2` quantiles (deduplicated). */
  private def boundaries[T](sample: IndexedSeq[T], ordering: Ordering[T], bits: Int): IndexedSeq[T] = {
    val sorted = sample.sorted(ordering)
    val distinct = dedupe(sorted, ordering)
    val most = (1 << bits) - 2
    if (distinct.size <= most) distinct
    else dedupe((1 to most).map(k => sorted(((k.toLong * sorted.size) / (most + 1)).toInt)), ordering)
  }

  private def dedupe[T](sorted: IndexedSeq[T], ordering: Ordering[T]): IndexedSeq[T] =
    sorted.iterator.zipWithIndex.collect {
      case (v, i) if i == 0 || ordering.compare(sorted(i - 1), v) != 0 => v
    }.toIndexedSeq
}
