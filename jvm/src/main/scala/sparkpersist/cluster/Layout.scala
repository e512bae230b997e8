package sparkpersist.cluster

import java.util.Locale

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.DataType

import sparkpersist.errors.PersistErrors

/**
 * Where a row goes in a clustered batch: one of `buckets` buckets, each written as its own part
 * (more when it passes the part size limit). Built from a sample of the window's rows
 * ([[LayoutKind.fromSample]]), then applied to every row of the window.
 */
trait Layout {
  def buckets: Int

  /** The bucket of the row, in `0 until buckets`. Not thread-safe: one layout per task. */
  def bucketOf(row: InternalRow): Int

  /** This layout, placing rows whose clustering columns are at `other` ordinals. */
  def at(other: IndexedSeq[Int]): Layout
}

/** How a clustering compaction lays a window out (`spark.sparkpersist.cluster.curve`). */
sealed trait LayoutKind extends Serializable {
  def name: String

  /**
   * The layout a `sample` of rows suggests for `buckets` buckets of about equal rows, from the
   * sample's clustering columns at `ordinals`, of `types`; rows are placed at the same ordinals.
   */
  def fromSample(sample: IndexedSeq[InternalRow], ordinals: IndexedSeq[Int], types: IndexedSeq[DataType],
      buckets: Int): Layout
}

object LayoutKind {
  /** Rows sorted along a space-filling curve and cut into buckets of equal rows ([[CurveLayout]]). */
  final case class Along(curve: Curve) extends LayoutKind {
    def name: String = curve.name
    def fromSample(sample: IndexedSeq[InternalRow], ordinals: IndexedSeq[Int], types: IndexedSeq[DataType],
        buckets: Int): Layout = CurveLayout.fromSample(sample, ordinals, types, curve, buckets)
  }

  /** Nested quantile slices, one column after the other ([[GridLayout]]). */
  case object Grid extends LayoutKind {
    val name = "grid"
    def fromSample(sample: IndexedSeq[InternalRow], ordinals: IndexedSeq[Int], types: IndexedSeq[DataType],
        buckets: Int): Layout = GridLayout.fromSample(sample, ordinals, types, buckets)
  }

  val All: Seq[LayoutKind] = Curve.All.map(Along) :+ Grid

  /** The layout named `name` (`hilbert`, `zorder` or `grid`, any case), or an error naming them. */
  def named(name: String): LayoutKind = All.find(_.name == name.trim.toLowerCase(Locale.ROOT)).getOrElse(
    throw PersistErrors.invalidOption(s"Unknown clustering layout '$name'", s"use ${All.map(_.name).mkString(", ")}."))
}
