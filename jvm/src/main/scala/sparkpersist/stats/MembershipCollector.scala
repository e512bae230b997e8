package sparkpersist.stats

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.types._

/**
 * Collects the [[MembershipFilter]] of one indexed column of one part while it is written: the
 * distinct hashes of its non-null values. Past `limit` distinct hashes it stops (and frees what it
 * held): the part gets no filter, and readers keep it for point lookups, as without one.
 *
 * @param limit most distinct hashes kept: [[MembershipCollector.MaxValues]] for a column the user
 *              named, [[AutoIndex]]'s smaller limit for a column indexed automatically
 */
final class MembershipCollector(dataType: DataType, limit: Int = MembershipCollector.MaxValues) {
  require(MembershipFilter.supports(dataType), s"No membership filter for ${dataType.catalogString}")
  require(limit > 0 && limit <= MembershipCollector.MaxValues, s"A membership limit is in 1..${MembershipCollector.MaxValues}")

  private val hashes = new CappedHashes(limit)
  private val text = new TextBytes
  private val collationId = dataType match {
    case s: StringType if CollatedStrings.supports(s) => s.collationId
    case _ => -1
  }

  def update(row: SpecializedGetters, ordinal: Int): Unit =
    if (hashes.kept && !row.isNullAt(ordinal)) {
      val h = dataType match {
        case ByteType => MembershipFilter.hashLong(row.getByte(ordinal).toLong)
        case ShortType => MembershipFilter.hashLong(row.getShort(ordinal).toLong)
        case IntegerType | DateType => MembershipFilter.hashLong(row.getInt(ordinal).toLong)
        case LongType | TimestampType | TimestampNTZType => MembershipFilter.hashLong(row.getLong(ordinal))
        case FloatType => MembershipFilter.hashDouble(row.getFloat(ordinal).toDouble)
        case DoubleType => MembershipFilter.hashDouble(row.getDouble(ordinal))
        case d: DecimalType => MembershipFilter.hashDecimal(row.getDecimal(ordinal, d.precision, d.scale))
        case _ if collationId >= 0 => MembershipFilter.hashCollated(row.getUTF8String(ordinal), collationId)
        case _ => MembershipFilter.hashText(text.of(row, ordinal))
      }
      hashes.add(h)
    }

  /** Distinct hashes seen so far, or None past the limit. */
  def distinct: Option[Int] = Option.when(hashes.kept)(hashes.size)

  /** The filter of the values seen, or None past the limit. */
  def result(): Option[MembershipFilter] = hashes.filter
}

object MembershipCollector {
  /** Most distinct values hashed per part (8 to 16 bytes each while the part is written). */
  val MaxValues: Int = 4 << 20
}

/**
 * The distinct 64-bit hashes of some values while there are at most `limit` of them: past the
 * limit, once [[abandon]]ed, or with a limit of 0, none are kept (and their memory is freed). The
 * set is allocated with the first hash, so an unused one costs nothing.
 */
private[stats] final class CappedHashes(limit: Int) {
  private var set: LongSet = _
  private var open = limit > 0

  /** Whether the hashes are still kept. */
  def kept: Boolean = open

  def add(h: Long): Unit = if (open) {
    if (set == null) set = new LongSet
    set.add(h)
    if (set.size > limit) abandon()
  }

  /** Stops keeping hashes: no filter. */
  def abandon(): Unit = { open = false; set = null }

  /** Distinct hashes kept. */
  def size: Int = if (set == null) 0 else set.size

  /** The filter of the hashes, while they are kept. */
  def filter: Option[MembershipFilter] =
    Option.when(open)(MembershipFilter.of(if (set == null) Array.emptyLongArray else set.sorted))
}

/**
 * A set of longs by open addressing (linear probing, at most half full); 0 is kept aside, as it
 * marks empty slots.
 */
private final class LongSet {
  private var slots = new Array[Long](64)
  private var hasZero = false
  private var used = 0

  def size: Int = used + (if (hasZero) 1 else 0)

  def add(v: Long): Unit =
    if (v == 0L) hasZero = true
    else {
      if ((used + 1) * 2 > slots.length) grow()
      if (insert(slots, v)) used += 1
    }

  /** The elements, sorted ascending. */
  def sorted: Array[Long] = {
    val out = new Array[Long](size)
    var n = 0
    if (hasZero) { out(0) = 0L; n = 1 }
    slots.foreach(s => if (s != 0L) { out(n) = s; n += 1 })
    java.util.Arrays.sort(out)
    out
  }

  /** Puts `v` (not 0) into `table`; whether it was not there. */
  private def insert(table: Array[Long], v: Long): Boolean = {
    val mask = table.length - 1
    var i = (java.lang.Long.hashCode(v * 0x9E3779B97F4A7C15L) & mask)
    while (table(i) != 0L) {
      if (table(i) == v) return false
      i = (i + 1) & mask
    }
    table(i) = v
    true
  }

  private def grow(): Unit = {
    val bigger = new Array[Long](slots.length * 2)
    slots.foreach(s => if (s != 0L) insert(bigger, s))
    slots = bigger
  }
}
