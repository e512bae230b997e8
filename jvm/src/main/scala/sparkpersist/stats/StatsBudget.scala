package sparkpersist.stats

import java.util.Locale

import org.apache.spark.sql.types.{DataType, DateType, TimestampNTZType, TimestampType}

import sparkpersist.schema.{ColumnDef, ShardSchema}

/**
 * Fits each part's statistics into a byte budget: their [[BinaryStatsCodec]] encoding is at most
 * `budgetBytes` long, whatever the data (a 20k-character string, a JSON column with thousands of
 * keys or a thousand levels). First, the [[MembershipFilter]]s of the columns the user did not
 * name as indexes (`indexed`) are dropped, the largest first, whether the column is protected or
 * not: those filters are extras, chosen by [[AutoIndex]] to use what the budget leaves over, and
 * dropping them does not count as trimming (the column is not added to [[PartStats.trimmed]]).
 * The filters of named indexes are dropped only once the other columns' stats are all trimmed,
 * before their own bounds. Then the
 * [[CastStats]] of string columns and of JSON places' strings are dropped, the largest
 * column first, until the stats fit (non-protected columns before protected ones): they only serve
 * casts of text, which plain comparisons do not need. Then, as Materialize's persist, with its
 * heuristics, in order:
 *
 *  1. shorten long string and binary bounds, nested ones included, to the longest cap under
 *     which the stats fit: caps shrink by a quarter from the longest bound's length down to one
 *     code point (byte, for binary), e.g. 48, 36, 27, 20, ..., 2, 1 for 64; see [[BoundCap]];
 *  1. drop nested stats ([[NestedPieces]]): the deepest pieces first (so the top-level JSON keys,
 *     those queries name most, go last), the largest first among pieces of one depth;
 *  1. drop whole columns' stats, the largest first.
 *
 * The columns of `keep` and time-like columns (see [[StatsBudget.isTimeLike]]) are protected: the
 * three steps run on the other columns first, and on the protected ones only if the stats still
 * do not fit once nothing else is left. Each step trims no more than the stats need to fit.
 *
 * Every step only widens what the stats admit (a shorter prefix below, a bumped prefix or nothing
 * above, a missing piece or column is "anything"; counts are never dropped), so pruning with the
 * trimmed stats is as sound as with the original ones. The ids of the columns whose stats were
 * widened or dropped are added to [[PartStats.trimmed]]. When even the stats without any column
 * are over the budget (row count, size and the trimmed list alone), every column is dropped.
 *
 * Cheap when the stats fit, which is the common case: one encoding. Otherwise each column is
 * encoded on its own and sizes are summed, re-encoding only the columns a step changes; the
 * weakest trimming that fits is searched from the strongest down, whose encodings are small.
 *
 * @param budgetBytes the budget; 0 disables it (stats are never trimmed)
 * @param indexed     the columns of named indexes (`index_columns`), which should be among `keep`
 */
final class StatsBudget(schema: ShardSchema, keep: Set[Int], val budgetBytes: Long, indexed: Set[Int] = Set.empty)
    extends Serializable {
  require(budgetBytes >= 0, s"A stats budget is at least 0 bytes (0: no budget), got $budgetBytes")

  @transient private lazy val codec = BinaryStatsCodec(schema)
  private val types: Map[Int, DataType] = schema.columns.map(c => c.id -> c.dataType).toMap

  /** Columns whose stats are trimmed only once no other column's are left. */
  val protectedIds: Set[Int] = keep ++ schema.columns.filter(StatsBudget.isTimeLike).map(_.id)

  /** `stats` fitted into the budget (the same instance when they already fit). */
  def apply(stats: PartStats): PartStats =
    if (budgetBytes == 0 || encodedSize(stats) <= budgetBytes) stats
    else {
      val fitting = new Fitting(stats)
      val (others, kept) = stats.columns.keys.toSeq.sorted.partition(id => !protectedIds(id))
      if (!fitting.fits) fitting.dropMembers((others ++ kept).filterNot(indexed), trims = false)
      Seq(others, kept).foreach(tier => if (!fitting.fits) fitting.dropCasts(tier))
      Seq(others, kept).foreach { tier =>
        if (!fitting.fits && (tier eq kept)) fitting.dropMembers(tier, trims = true)
        if (!fitting.fits) fitting.shortenBounds(tier)
        if (!fitting.fits) fitting.dropNested(tier)
        if (!fitting.fits) fitting.dropColumns(tier)
      }
      fitting.result
    }

  /** Bytes of the encoded stats. */
  def encodedSize(stats: PartStats): Long = codec.encode(stats).length.toLong

  /**
   * The trimming of one part's stats: the current column stats, the encoded size of each column's
   * entry, and the trimmed set, from which [[BinaryStatsCodec.size]] adds up the encoded size.
   */
  private final class Fitting(original: PartStats) {
    private var columns = original.columns
    private var sizes: Map[Int, Long] = columns.map { case (id, c) => id -> entrySize(id, c) }
    private var trimmed = original.trimmed

    def fits: Boolean = size(sizes, trimmed) <= budgetBytes

    def result: PartStats = PartStats(original.rowCount, original.bytes, columns, trimmed)

    /**
     * Drops the tier's membership filters one by one ([[MemberPieces]]: a column's own, its
     * arrays' elements', each JSON place's), the largest first (a Bloom filter of a column of ids
     * before the few values of a JSON place), until the stats fit; `trims`: whether that counts
     * as trimming the column.
     */
    def dropMembers(tier: Seq[Int], trims: Boolean): Unit =
      tier.flatMap(id => MemberPieces.of(columns(id)).map(id -> _)).sortBy { case (id, p) => (-p.bytes, id) }
        .iterator.takeWhile(_ => !fits)
        .foreach { case (id, p) => replace(Map(id -> Some(p.drop(columns(id)))), trims) }

    /** Step 0: drop the tier's cast stats, the largest column first, until the stats fit. */
    def dropCasts(tier: Seq[Int]): Unit =
      tier.filter(id => CastTrimming.has(columns(id))).sortBy(id => (-sizes(id), id)).iterator
        .takeWhile(_ => !fits).foreach(id => replace(Map(id -> Some(CastTrimming.without(columns(id))))))

    /**
     * Step 1: the longest cap on string/binary bounds under which the tier's stats fit, or 1. A
     * column changes under a cap iff it has a bound longer than the cap. Caps shrink by a quarter
     * (halving would cut three 64-character bounds to 32 to save a few bytes).
     */
    def shortenBounds(tier: Seq[Int]): Unit = {
      val start = columns
      val longest = tier.map(id => id -> BoundCap.longest(start(id), types(id))).toMap
      val caps = Iterator.iterate(longest.values.maxOption.getOrElse(0))(_ * 3 / 4).drop(1).takeWhile(_ >= 1).toIndexedSeq
      leastFitting(caps.size) { k =>
        longest.collect { case (id, n) if n > caps(k - 1) => id -> Some(BoundCap(start(id), types(id), caps(k - 1))) }
      }
    }

    /**
     * Step 2: drop the fewest nested pieces, in their order (deepest, then largest, first), that
     * make the stats fit, or all of them.
     */
    def dropNested(tier: Seq[Int]): Unit = {
      val start = columns
      val pieces = tier.flatMap(id => NestedPieces.list(id, start(id)))
        .sortBy(p => (-p.depth, -p.weight, p.column, p.index)).toIndexedSeq
      leastFitting(pieces.size) { n =>
        pieces.take(n).groupBy(_.column).map { case (id, ps) =>
          id -> Some(NestedPieces.drop(start(id), ps.iterator.map(_.index).toSet))
        }
      }
    }

    /**
     * Applies the weakest of `n` ever stronger trimmings (`trim(1)` to `trim(n)`; the stats as
     * they are, `trim(0)`, do not fit) under which the stats fit, or the strongest. The search
     * starts from the strongest, galloping then bisecting: strong trimmings encode small, so most
     * probes are cheap even when the stats are megabytes.
     */
    private def leastFitting(n: Int)(trim: Int => Map[Int, Option[ColumnStats]]): Unit =
      if (n > 0) {
        var hi = n
        if (fitsWith(trim(n))) {
          var (lo, step) = (n - 1, 1)
          while (lo > 0 && fitsWith(trim(lo))) {
            hi = lo
            step *= 2
            lo = math.max(0, hi - step)
          }
          while (hi - lo > 1) {
            val mid = (lo + hi) >>> 1
            if (fitsWith(trim(mid))) hi = mid else lo = mid
          }
        }
        replace(trim(hi))
      }

    /** Step 3: drop the tier's columns, largest first, until the stats fit. */
    def dropColumns(tier: Seq[Int]): Unit =
      tier.sortBy(id => (-sizes(id), id)).iterator.takeWhile(_ => !fits).foreach(id => replace(Map(id -> None)))

    private def fitsWith(changes: Map[Int, Option[ColumnStats]]): Boolean = {
      val (s, t) = applied(changes)
      size(s, t) <= budgetBytes
    }

    /** Replaces the stats of some columns (None: drops them), counted as trimming them if `trims`. */
    private def replace(changes: Map[Int, Option[ColumnStats]], trims: Boolean = true): Unit = {
      val (s, t) = applied(changes)
      sizes = s
      if (trims) trimmed = t
      changes.foreach {
        case (id, Some(c)) => columns = columns.updated(id, c)
        case (id, None) => columns = columns - id
      }
    }

    /** The column sizes and trimmed set after `changes` (each one widens or drops its column). */
    private def applied(changes: Map[Int, Option[ColumnStats]]): (Map[Int, Long], Set[Int]) = {
      val newSizes = changes.foldLeft(sizes) {
        case (s, (id, Some(c))) => s.updated(id, entrySize(id, c))
        case (s, (id, None)) => s - id
      }
      (newSizes, trimmed ++ changes.keys)
    }

    private def entrySize(id: Int, c: ColumnStats): Long = codec.entrySize(id, c)

    private def size(sizes: Map[Int, Long], trimmed: Set[Int]): Long =
      codec.size(original.rowCount, original.bytes, sizes.values, trimmed)
  }
}

object StatsBudget {
  private val TimeSuffixes = Seq("_ts", "_at", "time", "timestamp")

  /**
   * Whether a column holds times, whose stats window queries (`mz_now() <= event_ts + ...`) need
   * most: a TIMESTAMP, TIMESTAMP_NTZ or DATE column, or a name ending in `_ts`, `_at`, `time` or
   * `timestamp` (ignoring case).
   */
  def isTimeLike(column: ColumnDef): Boolean = column.dataType match {
    case TimestampType | TimestampNTZType | DateType => true
    case _ =>
      val name = column.name.toLowerCase(Locale.ROOT)
      TimeSuffixes.exists(name.endsWith)
  }
}
