package sparkpersist.cluster

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.DataType

import sparkpersist.util.Prefix

/**
 * Where a row goes in a clustered batch: its clustering columns' coordinates ([[ColumnRanks]])
 * give its position on the `curve`, and `cuts` (ascending positions) cut the curve into
 * `cuts.length + 1` buckets, one part each (a bucket past the part size limit makes more).
 *
 * @param ordinals the clustering columns' ordinals in the rows placed
 */
final class CurveLayout(columns: IndexedSeq[ColumnRanks], ordinals: IndexedSeq[Int], curve: Curve, bits: Int,
    cuts: Array[Long]) extends Layout {
  private val coords = new Array[Int](columns.size)

  def buckets: Int = cuts.length + 1

  /** The row's position on the curve. Not thread-safe: one layout per task. */
  def position(row: InternalRow): Long = {
    var i = 0
    while (i < coords.length) {
      coords(i) = columns(i).coordinate(row, ordinals(i))
      i += 1
    }
    curve.position(coords, bits)
  }

  /** The bucket of the row: the number of cuts at or below its position. */
  def bucketOf(row: InternalRow): Int = {
    val p = position(row)
    Prefix.length(cuts.length)(cuts(_) <= p)
  }

  def at(other: IndexedSeq[Int]): CurveLayout = new CurveLayout(columns, other, curve, bits, cuts)
}

object CurveLayout {
  /**
   * The layout a `sample` of rows suggests for `buckets` buckets of about equal rows: the sample's
   * clustering columns (at `ordinals`, of `types`) give each column's ranks, the sample's positions
   * give the cuts (fewer buckets when positions repeat). Rows are placed at the same ordinals; see [[CurveLayout.at]].
   */
  def fromSample(sample: IndexedSeq[InternalRow], ordinals: IndexedSeq[Int], types: IndexedSeq[DataType],
      curve: Curve, buckets: Int): CurveLayout = {
    require(ordinals.nonEmpty && ordinals.size == types.size, "a layout needs one type per clustering column")
    require(buckets >= 1, s"a layout has at least one bucket, got $buckets")
    val bits = Curve.bitsFor(ordinals.size)
    val columns = ordinals.zip(types).map { case (o, t) =>
      ColumnRanks.of(t, sample.filterNot(_.isNullAt(o)).map(_.get(o, t)), bits)
    }
    val unCut = new CurveLayout(columns, ordinals, curve, bits, Array.emptyLongArray)
    val positions = sample.map(unCut.position).sorted.toArray
    val cuts =
      if (positions.isEmpty) Array.emptyLongArray
      else (1 until buckets).map(k => positions(((k.toLong * positions.length) / buckets).toInt)).distinct
        .filter(_ > positions.head).toArray
    new CurveLayout(columns, ordinals, curve, bits, cuts)
  }
}
