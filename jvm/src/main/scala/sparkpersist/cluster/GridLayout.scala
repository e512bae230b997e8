package sparkpersist.cluster

import scala.annotation.tailrec
import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.DataType

import sparkpersist.util.Prefix

/**
 * A window's rows in nested quantile slices (k-d style): the first clustering column cut into
 * `k_1` slabs of about equal rows, each slab cut by the second column into slabs of its own, and
 * so on; the last column's slabs are the buckets. With `P` buckets over `d` columns, each column
 * is cut about `P^(1/d)` times ([[GridLayout.slices]]), so a thin filter on any one column (a
 * value, or a range inside one slab) meets about `P^(1-1/d)` buckets: the grid bound, which a
 * curve cut into `P` equal ranges only approaches (its cuts do not fall on cell boundaries).
 * [[GridLayout.reach]] is the exact worst case per column; a value holding more rows than a
 * slab's share takes its neighbours' parts too (its slab then has more buckets).
 *
 * Each column's values are first turned into ranks among the sample's values ([[ColumnRanks]]),
 * so slabs cut between distinct values: every row of one value lands in one slab at each level.
 */
final class GridLayout private (columns: IndexedSeq[ColumnRanks], ordinals: IndexedSeq[Int], root: GridLayout.Node,
    val buckets: Int) extends Layout {

  def bucketOf(row: InternalRow): Int = descend(root, 0, row)

  @tailrec private def descend(node: GridLayout.Node, depth: Int, row: InternalRow): Int = node match {
    case GridLayout.Leaf(bucket) => bucket
    case GridLayout.Slices(cuts, children) =>
      val c = columns(depth).coordinate(row, ordinals(depth))
      descend(children(Prefix.length(cuts.length)(cuts(_) <= c)), depth + 1, row)
  }

  def at(other: IndexedSeq[Int]): GridLayout = new GridLayout(columns, other, root, buckets)
}

object GridLayout {
  /** Rank bits per column: every distinct value of a 10,000-row sample its own rank. */
  private val Bits = 16

  private sealed trait Node
  private final case class Leaf(bucket: Int) extends Node
  /** Child `i` holds the coordinates in `[cuts(i - 1), cuts(i))` of the column at its depth. */
  private final case class Slices(cuts: Array[Int], children: IndexedSeq[Node]) extends Node

  def fromSample(sample: IndexedSeq[InternalRow], ordinals: IndexedSeq[Int], types: IndexedSeq[DataType],
      buckets: Int): GridLayout = {
    require(ordinals.nonEmpty && ordinals.size == types.size, "a layout needs one type per clustering column")
    require(buckets >= 1, s"a layout has at least one bucket, got $buckets")
    val columns = ordinals.zip(types).map { case (o, t) =>
      ColumnRanks.of(t, sample.filterNot(_.isNullAt(o)).map(_.get(o, t)), Bits)
    }
    val coords = sample.map(r => columns.indices.map(i => columns(i).coordinate(r, ordinals(i))).toArray)
    new GridLayout(columns, ordinals, node(coords, buckets, 0, columns.size, 0), buckets)
  }

  /**
   * The slabs of `parts` buckets (from `first`) over the columns from `depth` on, cut at the
   * sample's quantiles. Past the last column (a value that filled several slabs of it), one bucket.
   */
  private def node(rows: IndexedSeq[Array[Int]], parts: Int, depth: Int, d: Int, first: Int): Node =
    if (parts == 1 || rows.isEmpty || depth == d) Leaf(first)
    else {
      val sizes = split(parts, slices(parts, d - depth))
      val sorted = rows.map(_(depth)).sorted
      val ends = sizes.scanLeft(0)(_ + _).slice(1, sizes.size)
      val raw = ends.map(e => sorted(((e.toLong * sorted.size) / parts).toInt))
      // A slab the sample leaves empty (its cuts equal: one value fills it and more) gives its parts to the next.
      val cuts = ArrayBuffer.empty[Int]
      val merged = ArrayBuffer.empty[Int]
      var carry = 0
      sizes.indices.foreach { i =>
        val lo = if (i == 0) Int.MinValue else raw(i - 1)
        val hi = if (i == sizes.size - 1) Int.MaxValue else raw(i)
        carry += sizes(i)
        if (sorted.exists(c => c >= lo && c < hi)) {
          merged += carry
          carry = 0
          if (i < sizes.size - 1) cuts += hi
        }
      }
      if (carry > 0) merged(merged.size - 1) += carry
      val firsts = merged.scanLeft(first)(_ + _)
      val children = merged.indices.map { i =>
        val lo = if (i == 0) Int.MinValue else cuts(i - 1)
        val hi = if (i == merged.size - 1) Int.MaxValue else cuts(i)
        node(rows.filter(r => r(depth) >= lo && r(depth) < hi), merged(i), depth + 1, d, firsts(i))
      }
      Slices(cuts.toArray, children)
    }

  /** `parts` dealt into `k` slabs as evenly as possible, the larger first. */
  private def split(parts: Int, k: Int): IndexedSeq[Int] = (0 until k).map(i => parts / k + (if (i < parts % k) 1 else 0))

  /**
   * How many slabs the first of `columns` columns is cut into for `parts` buckets: the last
   * column into one a bucket; otherwise about `parts^(1/columns)`, the count whose worst column
   * ([[reach]]) meets the fewest buckets.
   */
  def slices(parts: Int, columns: Int): Int = plan(parts, columns)._1

  /** The most buckets a thin filter on each of `columns` columns meets, in a layout of `parts` buckets. */
  def reach(parts: Int, columns: Int): IndexedSeq[Int] = plan(parts, columns)._2

  private def plan(parts: Int, columns: Int): (Int, IndexedSeq[Int]) = {
    require(parts >= 1 && columns >= 1, s"a grid has at least one part and one column, got $parts and $columns")
    if (parts == 1) (1, IndexedSeq.fill(columns)(1))
    else if (columns == 1) (parts, IndexedSeq(1))
    else {
      val root = math.pow(parts, 1.0 / columns)
      val candidates = (math.max(1, math.floor(root).toInt - 1) to math.min(parts, math.ceil(root).toInt + 1))
      candidates.map { k =>
        val sizes = split(parts, k)
        val inner = sizes.map(sizes.distinct.map(s => s -> reach(s, columns - 1)).toMap)
        k -> (sizes.max +: (0 until columns - 1).map(c => inner.map(_(c)).sum))
      }.minBy { case (_, r) => (r.max, r.sum) }
    }
  }
}
