package sparkpersist.stats

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{ArrayType, DataType}

/** Where a part's update times and diffs come from. */
sealed trait TimeStamp

object TimeStamp {
  /** Each row carries its `time` and `diff` (non-null bigints) at these ordinals. */
  final case class InRow(timeOrdinal: Int, diffOrdinal: Int) extends TimeStamp

  /** Every row is an insert (diff +1) at `time`; rows hold only data columns. */
  final case class Stamped(time: Long) extends TimeStamp
}

/**
 * Collects a part's statistics while its rows are written: the row count, the stats of every data
 * column (keyed by stable column id), and the range of the reserved `time` column and whether any
 * `diff` is not +1 (a retraction or a multiplicity).
 *
 * Rows have the data columns at ordinals `0 until columnIds.length`, then, unless stamped, time
 * and diff as `stamp` says. Per row: one call per column, no boxing.
 * `jsonText(i)` says whether data column `i` is a string column declared to hold JSON; with a
 * `castZone`, string columns also get [[CastStats]], their timestamps parsed in that zone.
 * Columns for which `indexed(i)` holds (of a type [[MembershipFilter.supports]], or arrays of
 * one: then their elements) also get a [[MembershipFilter]]; those for which `autoIndexed(i)` holds get one of at most
 * `autoIndexValues` values, and only where it tells more than the bounds ([[AutoIndex]]); so do
 * the strings and the integers of each place of a JSON text or VARIANT column, with at most
 * [[MembershipFilter.ExactLimit]] values (exact filters: a document's many places must not fill
 * the stats budget with Bloom filters of timestamps and ids). With `boundsFromFile`, the bounds of
 * UTF8_BINARY and JSON text columns are the file's ([[fileBoundOrdinals]], [[FileBounded]]).
 */
final class PartStatsCollector(
    columnIds: Array[Int],
    columnTypes: Array[DataType],
    stamp: TimeStamp,
    boundChars: Int,
    jsonText: Int => Boolean = _ => false,
    castZone: Option[String] = None,
    indexed: Int => Boolean = _ => false,
    autoIndexed: Int => Boolean = _ => false,
    autoIndexValues: Int = 0,
    boundsFromFile: Boolean = false) {
  require(columnIds.length == columnTypes.length, "one type per column id")

  private val collectors = columnTypes.indices.map { i =>
    StatsCollector.forColumn(columnTypes(i), jsonText(i), boundChars, castZone,
      math.min(autoIndexValues, MembershipFilter.ExactLimit), boundsFromFile)
  }.toArray

  /** The ordinals of the data columns whose bounds the part file gives ([[FileBounded]]). */
  val fileBoundOrdinals: Seq[Int] = collectors.indices.filter(i => collectors(i) match {
    case f: FileBounded => f.boundsFromFile
    case _ => false
  })
  private val auto = columnTypes.indices.map(i => !indexed(i) && autoIndexValues > 0 && autoIndexed(i)).toArray
  /** The filter of each column's values, or (array columns) of its arrays' elements, or null. */
  private val members = columnTypes.indices.map { i =>
    val dt = columnTypes(i) match {
      case ArrayType(et, _) => et
      case t => t
    }
    if (!MembershipFilter.supports(dt)) null
    else if (indexed(i)) new MembershipCollector(dt)
    else if (auto(i)) new MembershipCollector(dt, autoIndexValues)
    else null
  }.toArray
  private val inElements = columnTypes.map(_.isInstanceOf[ArrayType])
  private var rows = 0L
  private var minT = Long.MaxValue
  private var maxT = Long.MinValue
  private var retractions = false
  private val (timeOrdinal, diffOrdinal) = stamp match {
    case TimeStamp.InRow(t, d) => (t, d)
    case TimeStamp.Stamped(t) =>
      minT = t
      maxT = t
      (-1, -1)
  }

  def update(row: InternalRow): Unit = {
    rows += 1
    var i = 0
    while (i < collectors.length) {
      collectors(i).update(row, i)
      if (members(i) != null) {
        if (!inElements(i)) members(i).update(row, i)
        else if (!row.isNullAt(i)) {
          val elements = row.getArray(i)
          var j = 0
          while (j < elements.numElements()) { members(i).update(elements, j); j += 1 }
        }
      }
      i += 1
    }
    if (timeOrdinal >= 0) {
      val t = row.getLong(timeOrdinal)
      if (t < minT) minT = t
      if (t > maxT) maxT = t
      if (row.getLong(diffOrdinal) != 1L) retractions = true
    }
  }

  def rowCount: Long = rows

  /** Smallest time seen (Long.MaxValue before the first row, unless stamped). */
  def minTime: Long = minT

  /** Largest time seen (Long.MinValue before the first row, unless stamped). */
  def maxTime: Long = maxT

  /** Whether any row had a diff other than +1. */
  def hasRetractions: Boolean = retractions

  /** Null count of the data column at `ordinal` so far. */
  def nullCount(ordinal: Int): Long = collectors(ordinal).nullCount

  /** `c` (column `i`'s stats, or its elements') with the filter collected, unless an automatic one says nothing more. */
  private def withFilter(i: Int, c: ColumnStats): ColumnStats = {
    val m = members(i)
    if (auto(i) && !m.distinct.exists(AutoIndex.informative(c, _))) c else c.copy(members = m.result())
  }

  /**
   * The part's stats, given its size in bytes once written, and the bounds its file records for
   * the columns of [[fileBoundOrdinals]] (by ordinal; none where it records none).
   */
  def result(bytes: Long, fileBounds: Int => Option[FileBounds] = _ => None): PartStats = {
    fileBoundOrdinals.foreach(i => collectors(i).asInstanceOf[FileBounded].useFileBounds(fileBounds(i)))
    PartStats(rows, bytes, columnIds.indices.map { i =>
      val c = collectors(i).result()
      columnIds(i) -> (if (members(i) == null) c else if (!inElements(i)) withFilter(i, c) else c.copy(nested =
        c.nested.map {
          case a: ArrayStats => a.copy(elements = a.elements.map(withFilter(i, _)))
          case n => n
        }))
    }.toMap)
  }
}
