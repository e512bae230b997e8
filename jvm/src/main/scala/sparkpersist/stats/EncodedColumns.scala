package sparkpersist.stats

import java.util.concurrent.atomic.AtomicReferenceArray

import scala.collection.immutable.AbstractMap

/**
 * The stats of many parts' columns as their encoded bytes ([[StatsVector]]s, as a columnar
 * rollup stores them), typed by `codec`: what [[EncodedColumns]] decode from. A column's bytes
 * are loaded when a part's stats of that column are first read: those of every part at once
 * (`load`), or, for parts of the segments a decision said it will read ([[want]]), the bytes of
 * those segments only (`loadSegments`), so a filter whose segment summaries rule out all but a
 * few segments reads a few segments' bytes. Opening a shard reads no column's stats.
 *
 * @param parts        the number of parts (rows of the rollup)
 * @param load         the vector of all parts of the column at this index of `ids`
 * @param loadSegments the vectors of the given segments (ascending) of the column at this index,
 *                     one per segment, each over that segment's parts
 * @param segmentParts the parts per segment (the last one may hold fewer)
 * @param segments     the summary of each part's segment (see [[StatsSegment]]), by part; None
 *                     for a part no summary covers
 * A column whose bytes cannot be read must load as vectors without stats (readers then assume anything).
 */
final class EncodedStats(
    private[stats] val codec: BinaryStatsCodec,
    ids: Array[Int],
    parts: Int,
    load: Int => StatsVector,
    loadSegments: (Int, Array[Int]) => Array[StatsVector],
    segmentParts: Int,
    segments: Int => Option[StatsSegment]) {
  /**
   * The index in `ids` of each column id, -1 for none: no boxed map lookup per read. Column ids
   * are numbered from 1 as columns are added; ids past 65535 (none in practice) are searched.
   */
  private val index: Array[Int] = {
    val out = Array.fill(math.min(65536, if (ids.isEmpty) 0 else math.max(0, ids.max) + 1))(-1)
    ids.zipWithIndex.foreach { case (id, i) => if (id >= 0 && id < out.length) out(id) = i }
    out
  }
  /**
   * How each column's bounds were written (by index in `ids`; null for a column the codec does not
   * type): resolved once, not per part read ([[EncodedColumns.entry]]).
   */
  private[stats] val writtenKinds: Array[BoundKeys.Kind] =
    ids.map(id => codec.typeOf(id).map(BoundKeys.kindOf).orNull)
  /** Each column's vector of all parts, once loaded whole. */
  private val whole = new AtomicReferenceArray[StatsVector](ids.length)
  /** Each column's vectors of single segments, by segment, once loaded (null: none yet). */
  private val bySegment = new AtomicReferenceArray[AtomicReferenceArray[StatsVector]](ids.length)
  /** The segments decisions said they will read (guarded by this). */
  private val wanted = new java.util.BitSet()
  /** The segments there are. */
  private val segmentCount = (parts + segmentParts - 1) / segmentParts
  /**
   * Locks of the chunks of [[EncodedStats.ChunkSegments]] segments a column's wanted bytes load in:
   * threads deciding parts of different chunks load them at once (a million parts' first decision
   * loads over the cores), two threads never load one chunk twice.
   */
  private val chunkLocks = Array.fill(EncodedStats.ChunkLocks)(new Object)

  /**
   * Says that the parts of part `part`'s segment will be decided on their own stats: a column's
   * first load then reads the bytes of the wanted segments only.
   */
  private[stats] def want(part: Int): Unit = synchronized { wanted.set(part / segmentParts) }

  private def isWanted(k: Int): Boolean = synchronized(wanted.get(k))

  /** The vector holding part `part`'s bytes of the column at index `i` of the column ids, loaded on first use. */
  private[stats] def vector(i: Int, part: Int): StatsVector = {
    val w = whole.get(i)
    if (w != null) return w
    val k = part / segmentParts
    val segs = bySegment.get(i)
    val s = if (segs == null) null else segs.get(k)
    if (s != null) s
    else if (isWanted(k)) {
      val chunk = k / EncodedStats.ChunkSegments
      chunkLocks(Math.floorMod(i * 31 + chunk, chunkLocks.length)).synchronized {
        val loaded = segmentsOf(i)
        if (loaded.get(k) == null) loadWanted(i, loaded, chunk)
        loaded.get(k)
      }
    } else synchronized {
      if (whole.get(i) == null) whole.set(i, load(i))
      whole.get(i)
    }
  }

  /** The column's vectors by segment, the array made on first use. */
  private def segmentsOf(i: Int): AtomicReferenceArray[StatsVector] = {
    bySegment.compareAndSet(i, null, new AtomicReferenceArray[StatsVector](segmentCount))
    bySegment.get(i)
  }

  /** Loads, in one read, the column's bytes of the wanted segments of `chunk` not loaded yet (under the chunk's lock). */
  private def loadWanted(i: Int, segs: AtomicReferenceArray[StatsVector], chunk: Int): Unit = {
    val from = chunk * EncodedStats.ChunkSegments
    val until = math.min(segmentCount, from + EncodedStats.ChunkSegments)
    val missing = (from until until).filter(k => isWanted(k) && segs.get(k) == null).toArray
    loadSegments(i, missing).zip(missing).foreach { case (v, k) => segs.set(k, v) }
  }

  /** How many columns' bytes were loaded so far, whole or for some segments. */
  private[sparkpersist] def loadedColumns: Int = ids.indices.count(i => whole.get(i) != null || bySegment.get(i) != null)

  /** How many parts' bytes of each column were loaded so far, by column id: what decisions read. */
  private[sparkpersist] def loadedParts: Map[Int, Int] = ids.indices.map { i =>
    val w = whole.get(i)
    val segs = bySegment.get(i)
    ids(i) -> (if (w != null) w.size
      else if (segs == null) 0
      else (0 until segs.length()).iterator.map(k => Option(segs.get(k)).fold(0)(_.size)).sum)
  }.toMap

  /** Part `part`'s stats over `rows` rows, decoded column by column when a column is first read. */
  def part(part: Int, rows: Long, bytes: Long, trimmed: Set[Int]): PartStats =
    PartStats(rows, bytes, new EncodedColumns(this, part, rows, segments(part)), trimmed)

  private[stats] def columnIds: Array[Int] = ids

  private[stats] def indexOf(id: Int): Int = if (id >= 0 && id < index.length) index(id) else ids.indexOf(id)
}

object EncodedStats {
  /** Segments loaded in one read (of 1,024 parts each by default: 65,536 parts). */
  private val ChunkSegments = 64
  /** Chunk locks per rollup: chunks of any column share them, striped. */
  private val ChunkLocks = 64
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

  /**
   * Reads column `id`'s null count and bounds into column `k` of `out` straight from the bytes,
   * as [[get]] would describe them, without decoding them into objects.
   */
  private[stats] def entry(id: Int, out: PartBounds, k: Int): Unit = {
    val i = source.indexOf(id)
    val v = if (i < 0) null else source.vector(i, part)
    if (v == null || v.length(part) == 0 || source.writtenKinds(i) == null) out.unknown(k)
    else out.entry(k, v.data, v.offset(part), v.length(part), rows, source.writtenKinds(i))
  }

  /** Says this part will be decided on its own stats (see [[EncodedStats.want]]). */
  def want(): Unit = source.want(part)

  /** How many columns were decoded so far (what a filter read). */
  private[sparkpersist] def decodedColumns: Int = Option(decoded).map(_.count(_ != null)).getOrElse(0)

  /** How many columns' stats bytes the rollup these stats come from has loaded so far (for all its parts or some segments). */
  private[sparkpersist] def loadedColumns: Int = source.loadedColumns

  /** How many parts' stats bytes of each column that rollup has loaded so far, by column id. */
  private[sparkpersist] def loadedParts: Map[Int, Int] = source.loadedParts

  /** Whether these bytes are typed as `codec` types them (so they can be written as they are). */
  private[stats] def encodedUnder(codec: BinaryStatsCodec): Boolean = source.codec.sameTypes(codec)

  /** The column entries of [[BinaryStatsCodec.columnEntries]]: the bytes as read. */
  private[stats] def entries: Seq[(Int, Array[Byte])] =
    source.columnIds.indices.flatMap(i => source.vector(i, part).bytes(part).map(source.columnIds(i) -> _))

  private def column(i: Int): Option[ColumnStats] = {
    var cache = decoded
    if (cache == null) {
      cache = new Array[Option[ColumnStats]](source.columnIds.length)
      decoded = cache
    }
    var c = cache(i)
    if (c == null) {
      val v = source.vector(i, part)
      c = if (v.length(part) == 0) None
        else source.codec.decodeColumn(source.columnIds(i), v.data, v.offset(part), v.length(part), rows)
      cache(i) = c
    }
    c
  }
}
