package sparkpersist.consolidate

import java.util.PriorityQueue

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, RowOrdering, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.types.StructType

import sparkpersist.read.{OpenFiles, PartFile, PartFileReader}
import sparkpersist.schema.ShardSchema

/**
 * Consolidation on read (seed 004): a streaming k-way merge of a shard's runs that sums the
 * diffs of every distinct data row (with time <= as-of) and emits each row as many times as its
 * positive net multiplicity. Rows whose updates cancel are dropped; a negative net multiplicity
 * means the shard retracts more than it inserted and is an error, as in Materialize.
 *
 * The writer sorts every run by the shard's order key first (then time and, for update writes,
 * the other data columns), so the merge key is the order key: all updates of one data row meet
 * at the heads of the run cursors in the same group of equal order-key values, and inside the
 * group rows are told apart by their exact bytes (so -0.0 is not 0.0, and maps, which Spark
 * cannot order, still consolidate). Memory is one cursor per run plus one group; a shard without
 * an order key is a single group, consolidated in memory (one entry per distinct row). A run out
 * of order-key order is reported, never silently mis-consolidated.
 *
 * A merge may see only some of the runs' updates (`updates` of each part): consolidation is exact
 * for every data row all of whose updates it sees, which is how parallel reads split the work
 * ([[ConsolidationPlan]]: each task keeps the rows of its share, all updates of a row included).
 *
 * Each update is copied once, into its run cursor's buffer; a group of one update (the common
 * case) emits that buffer, valid until the next `hasNext`/`next` (as Spark's readers' rows are),
 * and only the updates of a larger group are copied again, to be summed by their bytes.
 *
 * @param updateSchema every data column of the shard, then time and diff: the layout of updates
 *                     (emitted rows have it too; their data columns are the consolidated row)
 * @param asOf      the as-of the updates were read at (for error messages)
 * @param runs      the runs to merge, each a sequence of parts in run order
 * @param updates   the updates of one part to merge, in the part's order
 * @param complete  whether `runs` hold every part visible as of `asOf`. When pruning skipped
 *                  parts, a row may lack some of its updates (an insert in a skipped part, its
 *                  retraction in a read one) — only rows that cannot pass the scan's filter,
 *                  since every part that may hold a passing row is read. Such a row's count
 *                  means nothing: a negative one is dropped instead of reported, a positive one
 *                  is dropped by the filter above the scan.
 */
final class Consolidation(
    shard: String,
    schema: ShardSchema,
    updateSchema: StructType,
    asOf: Long,
    runs: Seq[Seq[PartFile]],
    updates: PartFile => Iterator[InternalRow],
    complete: Boolean = true) extends Iterator[InternalRow] {

  private var copyRows = false

  /**
   * Merges every update with time <= `asOf` of `runs`, read with `reader` (every data column of
   * the shard, then time and diff); the parts it opens are registered in `open` for closing.
   * Each row it returns is its own copy (the data columns only), kept as long as the caller likes.
   */
  def this(shard: String, schema: ShardSchema, reader: PartFileReader, asOf: Long, runs: Seq[Seq[PartFile]],
      open: OpenFiles) = {
    this(shard, schema, reader.schema, asOf, runs, reader.rowsAsOf(_, asOf, open))
    copyRows = true
  }

  private val dataWidth = updateSchema.length - 2
  private val diffOrdinal = updateSchema.length - 1
  private val keyOrdinals = MergeKey.ordinals(schema, updateSchema)
  /** Orders updates by their merge key. */
  private val keyOrdering = new LazilyGeneratedOrdering(keyOrdinals.map { i =>
    SortOrder(BoundReference(i, updateSchema(i).dataType, updateSchema(i).nullable), Ascending)
  })
  /** Orders merge keys alone ([[projectKey]]'s rows). */
  private val keyRowOrdering = new LazilyGeneratedOrdering(keyOrdinals.zipWithIndex.map { case (o, i) =>
    SortOrder(BoundReference(i, updateSchema(o).dataType, updateSchema(o).nullable), Ascending)
  })
  private val projectKey = UnsafeProjection.create(
    keyOrdinals.map(i => BoundReference(i, updateSchema(i).dataType, updateSchema(i).nullable)))
  private val projectData = UnsafeProjection.create(
    (0 until dataWidth).map(i => BoundReference(i, updateSchema(i).dataType, updateSchema(i).nullable)))

  /** The cursors of the runs not yet exhausted, by head; opened on the first `hasNext` (no I/O before). */
  private lazy val heads = {
    val queue = new PriorityQueue[RunCursor](math.max(1, runs.size),
      (a: RunCursor, b: RunCursor) => keyOrdering.compare(a.head, b.head))
    runs.foreach { parts =>
      val cursor = new RunCursor(parts.iterator)
      if (cursor.advance()) queue.add(cursor)
    }
    queue
  }

  /** The cursor whose head the current group (of one update) emits, advanced before the next group. */
  private var consumed: RunCursor = _
  private var pending: Iterator[InternalRow] = Iterator.empty

  override def hasNext: Boolean = {
    while (!pending.hasNext && (consumed != null || !heads.isEmpty)) {
      if (consumed != null && consumed.advance()) heads.add(consumed)
      consumed = null
      if (!heads.isEmpty) pending = nextGroup()
    }
    pending.hasNext
  }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException("consolidated snapshot exhausted")
    if (copyRows) projectData(pending.next()).copy() else pending.next()
  }

  /** Consolidates the group of updates whose merge key equals the smallest head's. */
  private def nextGroup(): Iterator[InternalRow] = {
    val first = heads.poll()
    if (!first.nextHasSameKey && (heads.isEmpty || keyOrdering.compare(heads.peek().head, first.head) != 0)) {
      // A group of one update (the common case): its row, diff times, no copy.
      consumed = first
      checked(first.head, first.head.getLong(diffOrdinal))
    } else {
      val groupKey = projectKey(first.head).copy()
      val sums = mutable.LinkedHashMap.empty[UnsafeRow, Long]
      var cursor = first
      while (cursor != null) {
        var more = true
        while (more) {
          val data = projectData(cursor.head).copy()
          sums.update(data, sums.getOrElse(data, 0L) + cursor.head.getLong(diffOrdinal))
          more = cursor.nextHasSameKey
          if (!cursor.advance()) more = false
          else if (!more) heads.add(cursor)
        }
        cursor = if (!heads.isEmpty && keyRowOrdering.compare(projectKey(heads.peek().head), groupKey) == 0) heads.poll()
          else null
      }
      sums.iterator.flatMap { case (row, count) => checked(row, count) }
    }
  }

  private def checked(row: InternalRow, count: Long): Iterator[InternalRow] = {
    if (count < 0 && complete) throw new NegativeMultiplicity(shard, asOf, count)
    if (count <= 0) Iterator.empty else Multiplicity.repeat(row, count)
  }

  /**
   * The updates of one run with time <= as-of, part after part. `head` is a copy of the current
   * update in this cursor's own buffer (rewritten by each `advance`); the update after it is
   * read ahead, so a group knows whether the run holds more of its key.
   */
  private final class RunCursor(parts: Iterator[PartFile]) {
    private val project = UnsafeProjection.create(updateSchema)
    var head: UnsafeRow = _
    private var ahead: InternalRow = _
    private var part: PartFile = _
    private var rows: Iterator[InternalRow] = Iterator.empty

    /** Whether the run's next update has the head's merge key. */
    def nextHasSameKey: Boolean = ahead != null && keyOrdering.compare(ahead, head) == 0

    /** Moves to the next update; false at the end of the run. */
    def advance(): Boolean = {
      if (head == null) ahead = read()
      if (ahead == null) return false
      head = project(ahead)
      ahead = read()
      if (ahead != null && keyOrdering.compare(ahead, head) < 0) throw new UnsortedRun(shard, part.path)
      true
    }

    private def read(): InternalRow = {
      while (!rows.hasNext && parts.hasNext) {
        part = parts.next()
        rows = updates(part)
      }
      if (rows.hasNext) rows.next() else null
    }
  }
}

/** The merge key of a shard's runs: the prefix of the sort order every part of the shard has. */
object MergeKey {
  /** Ordinals (in `readSchema`) of the order-by columns, leaving out types Spark cannot order. */
  def ordinals(schema: ShardSchema, readSchema: StructType): Seq[Int] =
    schema.orderBy.map(n => readSchema.fieldIndex(schema.column(n).get.name))
      .filter(i => RowOrdering.isOrderable(readSchema(i).dataType))
}

/** The shard retracts a row more often than it inserted it: its updates are inconsistent. */
final class NegativeMultiplicity(val shard: String, val asOf: Long, val count: Long)
  extends IllegalStateException(
    s"Shard '$shard' as of $asOf holds a row with net multiplicity $count (more retractions than " +
      s"insertions), so its updates are inconsistent. Read its raw updates (the .updates table) to " +
      "find the retractions without a matching insertion.")

/** A run whose rows are not in merge-key order cannot be consolidated by a streaming merge. */
final class UnsortedRun(val shard: String, val path: String)
  extends IllegalStateException(
    s"Part $path of shard '$shard' is not sorted by the shard's order key, so it cannot be " +
      "consolidated. It was not written by the sparkpersist writer or is corrupt.")
