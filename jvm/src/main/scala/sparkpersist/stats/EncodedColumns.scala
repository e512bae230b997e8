package sparkpersist.stats

import scala.collection.immutable.AbstractMap

/**
 * The stats of many parts' columns as their encoded bytes ([[StatsVector]]s, one per column,
 * as a columnar rollup stores them), typed by `codec`: what [[EncodedColumns]] decode from.
 * A column's vector is loaded (`load`, by the column's index in `ids`) when a part's stats of
 * that column are first read, once for all parts: opening a shard reads no column's stats, and a
 * query reads the columns its filter references.
 *
 * @param load     the vector of the column at this index of `ids`; a column whose bytes cannot be
 *                 read must load as a vector without stats (readers then assume anything)
 * @param segments the summary of each part's segment (see [[StatsSegment]]), by part; None for a
 *                 part no summary covers
 */
final class EncodedStats(
    private[stats] val codec: BinaryStatsCodec,
    ids: Array[Int],
    load: Int => StatsVector,
    segments: Int => Option[StatsSegment]) {
  private val index: Map[Int, Int] = ids.zipWithIndex.toMap
  private val loaded = new java.util.concurrent.atomic.AtomicReferenceArray[StatsVector](ids.length)

  /** The vector of the column at index `i` of the column ids, loaded on first use (once, under a lock). */
  private[stats] def vector(i: Int): StatsVector = {
    val v = loaded.get(i)
    if (v != null) v
    else synchronized {
      if (loaded.get(i) == null) loaded.set(i, load(i))
      loaded.get(i)
    }
  }

  /** How many columns' vectors were loaded so far. */
  private[sparkpersist] def loadedColumns: Int = ids.indices.count(loaded.get(_) != null)

  /** Part `part`'s stats over `rows` rows, decoded column by column when a column is first read. */
  def part(part: Int, rows: Long, bytes: Long, trimmed: Set[Int]): PartStats =
    PartStats(rows, bytes, new EncodedColumns(this, part, rows, segments(part)), trimmed)

  private[stats] def columnIds: Array[Int] = ids

  private[stats] def indexOf(id: Int): Int = index.getOrElse(id, -1)
}

/**
 * The stats of one part's columns, decoded lazily: a column's stats are decoded when first read
 * (`get`, as a filter reads the columns it references) and kept; iterating decodes them all. A
 * column whose bytes are damaged is absent (readers assume anything), as in a whole decode.
 * Reads from several threads are safe: a column decoded twice at once decodes to equal stats.
 */
final class EncodedColumns private[stats] (
    source: EncodedStats,
    part: Int,
    rows: Long,
    /** The summary of the segment of parts this part belongs to, if the rollup recorded one. */
    val segment: Option[StatsSegment]) extends AbstractMap[Int, ColumnStats] {

  @volatile private var decoded: Array[Option[ColumnStats]] = _

  def get(id: Int): Option[ColumnStats] = {
    val i = source.indexOf(id)
    if (i < 0) None else column(i)
  }

  def iterator: Iterator[(Int, ColumnStats)] =
    source.columnIds.indices.iterator.flatMap(i => column(i).map(source.columnIds(i) -> _))

  def removed(key: Int): Map[Int, ColumnStats] = Map.from(iterator).removed(key)

  def updated[V >: ColumnStats](key: Int, value: V): Map[Int, V] = Map.from(iterator).updated(key, value)

  /** How many columns were decoded so far (what a filter read). */
  private[sparkpersist] def decodedColumns: Int = Option(decoded).map(_.count(_ != null)).getOrElse(0)

  /** How many columns' stats bytes the rollup these stats come from has loaded so far (for all its parts). */
  private[sparkpersist] def loadedColumns: Int = source.loadedColumns

  /** Whether these bytes are typed as `codec` types them (so they can be written as they are). */
  private[stats] def encodedUnder(codec: BinaryStatsCodec): Boolean = source.codec.sameTypes(codec)

  /** The column entries of [[BinaryStatsCodec.columnEntries]]: the bytes as read. */
  private[stats] def entries: Seq[(Int, Array[Byte])] =
    source.columnIds.indices.flatMap(i => source.vector(i).bytes(part).map(source.columnIds(i) -> _))

  private def column(i: Int): Option[ColumnStats] = {
    var cache = decoded
    if (cache == null) {
      cache = new Array[Option[ColumnStats]](source.columnIds.length)
      decoded = cache
    }
    var c = cache(i)
    if (c == null) {
      val v = source.vector(i)
      c = if (v.length(part) == 0) None
        else source.codec.decodeColumn(source.columnIds(i), v.data, v.offset(part), v.length(part), rows)
      cache(i) = c
    }
    c
  }
}
