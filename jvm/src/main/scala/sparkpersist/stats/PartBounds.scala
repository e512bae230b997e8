package sparkpersist.stats

import org.apache.spark.sql.types.DataType

import sparkpersist.stats.BoundKeys.Kind

/**
 * The null counts and bounds of some columns in one part, as primitives ([[BoundKeys]]): what a
 * vectorized part decision reads. [[fill]] reads them from a part's stats; stats a columnar
 * rollup holds as bytes are read straight from those bytes (the null count and the two bound
 * fields of [[BinaryStatsCodec]]'s column entry), so deciding a million rollup parts decodes no
 * stats objects. One instance is reused part after part by one thread.
 *
 * Column `k` (of `ids`) of the part is described by `flags(k)`, as the interpreter's column spec
 * would be ([[sparkpersist.interpret.PartSpecs]]): no stats for the column: null or any value;
 * every row null: no values ([[HasValues]] unset); else values within `lower(k)..upper(k)` when
 * [[Bounded]] (both bounds present, of the column's type, in order), any value otherwise.
 * Damaged bytes read as the whole decode reads them: a damaged entry as no stats, a damaged
 * bound as no bound.
 */
final class PartBounds(ids: Array[Int], types: Array[DataType]) {
  import PartBounds._

  require(ids.length == types.length, "one type per column id")
  require(types.forall(BoundKeys.supports), "bounds as keys exist for simple types only")

  private val kinds: Array[Kind] = types.map(BoundKeys.kindOf)
  val flags: Array[Int] = new Array[Int](ids.length)
  val lower: Array[Long] = new Array[Long](ids.length)
  val upper: Array[Long] = new Array[Long](ids.length)

  /** Reads the columns' stats of a part with these stats. */
  def fill(stats: PartStats): Unit = stats.columns match {
    case e: EncodedColumns =>
      var k = 0
      while (k < ids.length) {
        e.entry(ids(k), this, k)
        k += 1
      }
    case columns =>
      var k = 0
      while (k < ids.length) {
        columns.get(ids(k)) match {
          case Some(c) => column(k, c, stats.rowCount)
          case None => flags(k) = Unknown
        }
        k += 1
      }
  }

  private def column(k: Int, c: ColumnStats, rows: Long): Unit = {
    flags(k) = counts(c.nullCount, rows)
    if ((flags(k) & HasValues) != 0) (c.lower, c.upper) match {
      case (Some(lo), Some(hi)) if BoundKeys.isValueOf(types(k), lo) && BoundKeys.isValueOf(types(k), hi) =>
        bounds(k, BoundKeys.keyOf(kinds(k), lo), BoundKeys.keyOf(kinds(k), hi))
      case _ =>
    }
  }

  private def counts(nulls: Long, rows: Long): Int = {
    val nullable = if (nulls > 0) MayBeNull else 0
    if (nulls >= rows) nullable else nullable | HasValues
  }

  private def bounds(k: Int, lo: Long, hi: Long): Unit =
    if (lo <= hi) {
      lower(k) = lo
      upper(k) = hi
      flags(k) |= Bounded
    }

  /** Column `k` has no stats in this part: null or any value. */
  private[stats] def unknown(k: Int): Unit = flags(k) = Unknown

  // ---- a column entry's bytes: nulls: long, fields: array<{kind: int, payload: bytes}> ----

  private var data: Array[Byte] = _
  private var pos = 0

  /**
   * Column `k` from its entry: `length` bytes of `bytes` at `offset`, its bounds written as
   * `written` encodes them (bounds of another kind than the filter's are not read), over `rows` rows.
   */
  private[stats] def entry(k: Int, bytes: Array[Byte], offset: Int, length: Int, rows: Long, written: Kind): Unit = {
    data = bytes
    pos = offset
    val end = offset + length
    try {
      val nulls = readLong(end)
      if (nulls < 0 || nulls > rows) throw Damaged // StatsConsistency's rule: no stats
      flags(k) = counts(nulls, rows)
      val typed = written == kinds(k)
      var lo, hi = 0L
      var found = 0
      var items = readLong(end)
      while (items != 0) {
        if (items < 0) { items = -items; readLong(end) } // a block with its size in bytes
        while (items > 0) {
          val field = readInt(end)
          val size = readLong(end)
          if (size < 0 || size > end - pos) throw Damaged
          val payloadEnd = pos + size.toInt
          if (typed && (field == 1 || field == 2) && bound(kinds(k), payloadEnd)) {
            if (field == 1) { lo = boundRead; found |= 1 } else { hi = boundRead; found |= 2 }
          }
          pos = payloadEnd
          items -= 1
        }
        items = readLong(end)
      }
      if (pos != end) throw Damaged
      if (found == 3 && (flags(k) & HasValues) != 0) bounds(k, lo, hi)
    } catch {
      case Damaged => flags(k) = Unknown
    } finally data = null
  }

  /** The key [[bound]] read last: a field, not an Option, so a million parts box no bound. */
  private var boundRead = 0L

  /** Reads the key of the bound payload ending at `end` into [[boundRead]]; false if it does not decode as the column's type. */
  private def bound(kind: Kind, end: Int): Boolean =
    try {
      boundRead = readBound(kind, end)
      pos == end
    } catch {
      case Damaged => false
    }

  private def readBound(kind: Kind, end: Int): Long = kind match {
    case BoundKeys.Bool =>
      if (pos >= end) throw Damaged
      pos += 1
      if (data(pos - 1) == 1) 1L else 0L
    case BoundKeys.Int8 => inRange(readInt(end), Byte.MinValue, Byte.MaxValue)
    case BoundKeys.Int16 => inRange(readInt(end), Short.MinValue, Short.MaxValue)
    case BoundKeys.Int32 => readInt(end)
    case BoundKeys.Int64 => readLong(end)
    case BoundKeys.Float32 =>
      BoundKeys.doubleKey(java.lang.Float.intBitsToFloat(littleEndian(end, 4).toInt).toDouble)
    case BoundKeys.Float64 => BoundKeys.doubleKey(java.lang.Double.longBitsToDouble(littleEndian(end, 8)))
    case _ => throw Damaged
  }

  private def inRange(v: Long, min: Int, max: Int): Long = if (v < min || v > max) throw Damaged else v

  private def littleEndian(end: Int, n: Int): Long = {
    if (end - pos < n) throw Damaged
    var v = 0L
    var i = n - 1
    while (i >= 0) {
      v = (v << 8) | (data(pos + i) & 0xFFL)
      i -= 1
    }
    pos += n
    v
  }

  /** An Avro int: a zig-zag varint of at most 5 bytes. */
  private def readInt(end: Int): Long = {
    val start = pos
    val v = readLong(end)
    if (pos - start > 5 || v < Int.MinValue || v > Int.MaxValue) throw Damaged
    v
  }

  /** An Avro long: a zig-zag varint of at most 10 bytes. */
  private def readLong(end: Int): Long = {
    var z = 0L
    var shift = 0
    var more = true
    while (more) {
      if (pos >= end || shift > 63) throw Damaged
      val b = data(pos)
      pos += 1
      z |= (b & 0x7FL) << shift
      shift += 7
      more = (b & 0x80) != 0
    }
    (z >>> 1) ^ -(z & 1)
  }
}

object PartBounds {
  /** The column may be null in the part. */
  val MayBeNull = 1
  /** The column has non-null values in the part. */
  val HasValues = 2
  /** Its non-null values are within `lower..upper`. */
  val Bounded = 4
  /** No stats: null or any value. */
  private val Unknown = MayBeNull | HasValues

  private object Damaged extends RuntimeException(null, null, false, false)
}
