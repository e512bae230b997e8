package sparkpersist.stats

import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.types._

/**
 * What a segment of parts (consecutive parts of a columnar rollup) holds, as the stats of one
 * part would describe all their rows together: row counts and null counts added up, the least
 * lower and greatest upper bound of each column of a simple type (Iceberg's manifest summaries).
 * A filter that rules out this summary rules out every part of the segment, since each part's
 * rows are among the rows it admits; so a query decides a segment once, and its parts one by one
 * only when the summary is kept.
 *
 * Only parts with stats count; a column gets a summary only when every such part has stats for
 * it, and bounds only when every part with a non-null value has that bound. Nested, cast and
 * membership stats are left out (absent: anything).
 */
final class StatsSegment(
    val summary: PartStats,
    /** How many parts with stats the summary was made of. */
    val parts: Int,
    /** The codec of the schema the summary was made under (the column types it assumed). */
    private[stats] val codec: BinaryStatsCodec) {

  /**
   * Whether this is the summary `summarize(stats, ...)` would make under `codec`: every part of
   * `stats` is a part of this segment, as read with it, and all of them are, under the same types.
   * A rollup's segments do not change once written, so a rollup carries them forward this way
   * instead of summarizing their parts again.
   */
  def summarizes(stats: Seq[PartStats], codec: BinaryStatsCodec): Boolean =
    stats.size == parts && this.codec.sameTypes(codec) && stats.forall(s => StatsSegment.of(s).exists(_ eq this)) &&
      // Their columns are the ones read with this summary; their counts must be too.
      stats.iterator.map(_.rowCount).sum == summary.rowCount && stats.iterator.map(_.bytes).sum == summary.bytes &&
      stats.iterator.flatMap(_.trimmed).toSet == summary.trimmed
}

object StatsSegment {

  /** The summary of parts with these stats, over columns of these types. */
  def summarize(parts: Seq[PartStats], columnTypes: Map[Int, DataType]): PartStats = {
    val rows = parts.iterator.map(_.rowCount).sum
    val columns = columnTypes.iterator.filter { case (_, dt) => summarized(dt) }.flatMap { case (id, dt) =>
      val stats = parts.map(p => p.columns.get(id).map(_ -> p.rowCount))
      if (parts.isEmpty || stats.exists(_.isEmpty)) None
      else {
        val order = PhysicalDataType.ordering(dt)
        val valued = stats.flatten.filter { case (c, n) => c.nullCount < n }
        def bound(pick: ColumnStats => Option[Any], keep: (Any, Any) => Any): Option[Any] =
          if (valued.exists(v => pick(v._1).isEmpty)) None
          else valued.flatMap(v => pick(v._1)).reduceOption(keep)
        Some(id -> ColumnStats(stats.flatten.map(_._1.nullCount).sum,
          bound(_.lower, (a, b) => if (order.lteq(a, b)) a else b),
          bound(_.upper, (a, b) => if (order.gteq(a, b)) a else b)))
      }
    }
    PartStats(rows, parts.iterator.map(_.bytes).sum, columns.toMap, parts.iterator.flatMap(_.trimmed).toSet)
  }

  /** The types whose bounds a summary keeps: Spark's order on them is their bounds' order. */
  def summarized(dt: DataType): Boolean = dt match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType |
         DateType | TimestampType | TimestampNTZType | _: DecimalType => true
    case s: StringType => s == StringType // UTF8_BINARY: ordered by its bytes, as its bounds
    case _ => false
  }

  /** The segment summary recorded with a part's stats, if they came from a columnar rollup. */
  def of(stats: PartStats): Option[StatsSegment] = stats.columns match {
    case e: EncodedColumns => e.segment
    case _ => None
  }
}
