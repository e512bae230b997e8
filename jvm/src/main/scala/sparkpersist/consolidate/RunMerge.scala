package sparkpersist.consolidate

import java.util.PriorityQueue

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, JoinedRow, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.types.StructType

import sparkpersist.read.PartFile

/**
 * The streaming k-way merge of sorted runs (seed 004), the one that consolidation on read
 * ([[Consolidation]]) and compaction (`sparkpersist.compact.CompactedRows`) share.
 *
 * Updates come in the layout `layout`: data columns, then time and diff. Every run must be sorted
 * by the merge key, the columns at `keyOrdinals` (ascending, nulls first, as the writer sorts); a
 * run out of order is reported ([[UnsortedRun]]), never silently mis-merged. An empty merge key
 * makes all updates one key, summed in memory.
 *
 * Take the updates one way, once:
 *  - [[updates]]: every update, smallest merge key first;
 *  - [[sums]]: for each merge key, its updates summed by data row: every distinct data row of
 *    the key once (told apart by exact bytes, so -0.0 is not 0.0, and maps, which Spark cannot
 *    order, still sum), with the sum of its diffs as diff and the time of its first update as
 *    time (the key's time when the merge key includes time). Rows whose diffs cancel (sum to
 *    zero) are left out; negative sums are returned: the caller decides what they mean.
 *
 * Memory is one cursor per run — the head in the cursor's own buffer and the update after it, read
 * ahead so that a key held by a single update is known as such without a copy — plus, for
 * [[sums]], the sums of one key. Every row returned is valid until the next `hasNext` or `next`
 * (as Spark's readers' rows are). No part is opened before the first `hasNext`.
 *
 * @param rowsOf the updates of one part to merge, in the part's order
 */
final class RunMerge(
    shard: String,
    layout: StructType,
    keyOrdinals: Seq[Int],
    runs: Seq[Seq[PartFile]],
    rowsOf: PartFile => Iterator[InternalRow]) {

  private val timeOrdinal = layout.length - 2
  private val diffOrdinal = layout.length - 1
  private def column(i: Int) = BoundReference(i, layout(i).dataType, layout(i).nullable)

  /** Ascending, nulls first (as the writer sorts), by the columns `columns` bound to `ordinals`. */
  private def ordering(columns: Seq[Int], ordinals: Seq[Int]) = new LazilyGeneratedOrdering(
    columns.zip(ordinals).map { case (c, i) => SortOrder(BoundReference(i, layout(c).dataType, layout(c).nullable), Ascending) })
  /** Orders updates by their merge key. */
  private val keyOrdering = ordering(keyOrdinals, keyOrdinals)
  /** Orders merge keys alone ([[projectKey]]'s rows). */
  private val keyRowOrdering = ordering(keyOrdinals, keyOrdinals.indices)
  private val projectKey = UnsafeProjection.create(keyOrdinals.map(column))
  private val projectData = UnsafeProjection.create((0 until timeOrdinal).map(column))
  private val projectSum = UnsafeProjection.create(layout.fields.indices.map(column))

  /** The cursors of the runs not yet exhausted, by head; opened on the first `hasNext`. */
  private lazy val heads = {
    val queue = new PriorityQueue[RunCursor](math.max(1, runs.size),
      (a: RunCursor, b: RunCursor) => keyOrdering.compare(a.head, b.head))
    runs.foreach { parts =>
      val cursor = new RunCursor(parts.iterator)
      if (cursor.advance()) queue.add(cursor)
    }
    queue
  }

  /** The cursor whose head was last returned as is, advanced before anything else is read. */
  private var consumed: RunCursor = _
  private var taken = false

  private def restore(): Unit = {
    if (consumed != null && consumed.advance()) heads.add(consumed)
    consumed = null
  }

  private def take(): Unit = {
    if (taken) throw new IllegalStateException("the updates of a RunMerge are taken once")
    taken = true
  }

  /** Every update, smallest merge key first. */
  def updates(): Iterator[InternalRow] = {
    take()
    new Iterator[InternalRow] {
      override def hasNext: Boolean = { restore(); !heads.isEmpty }
      override def next(): InternalRow = {
        if (!hasNext) throw new NoSuchElementException("merged runs exhausted")
        consumed = heads.poll()
        consumed.head
      }
    }
  }

  /** For each merge key, its updates summed by data row (see the class doc). */
  def sums(): Iterator[InternalRow] = {
    take()
    new Iterator[InternalRow] {
      private var pending: Iterator[InternalRow] = Iterator.empty
      override def hasNext: Boolean = {
        while (!pending.hasNext && { restore(); !heads.isEmpty }) pending = nextKey()
        pending.hasNext
      }
      override def next(): InternalRow = {
        if (!hasNext) throw new NoSuchElementException("merged runs exhausted")
        pending.next()
      }
    }
  }

  /** The sums of the smallest merge key's updates. */
  private def nextKey(): Iterator[InternalRow] = {
    val first = heads.poll()
    if (!first.nextHasSameKey && (heads.isEmpty || keyOrdering.compare(heads.peek().head, first.head) != 0)) {
      // A key of one update (the common case): that update, in its cursor's buffer.
      consumed = first
      if (first.head.getLong(diffOrdinal) == 0) Iterator.empty else Iterator.single(first.head)
    } else {
      val key = projectKey(first.head).copy()
      val sums = mutable.LinkedHashMap.empty[UnsafeRow, Array[Long]] // data -> (time, diff)
      var cursor = first
      while (cursor != null) {
        var more = true
        while (more) {
          val data = projectData(cursor.head).copy()
          val diff = cursor.head.getLong(diffOrdinal)
          sums.get(data) match {
            case Some(sum) => sum(1) += diff
            case None => sums.update(data, Array(cursor.head.getLong(timeOrdinal), diff))
          }
          more = cursor.nextHasSameKey
          if (!cursor.advance()) more = false
          else if (!more) heads.add(cursor)
        }
        cursor = if (!heads.isEmpty && keyRowOrdering.compare(projectKey(heads.peek().head), key) == 0) heads.poll()
          else null
      }
      val joined = new JoinedRow
      sums.iterator.collect { case (data, sum) if sum(1) != 0 => projectSum(joined(data, InternalRow(sum(0), sum(1)))) }
    }
  }

  /**
   * The updates of one run, part after part. `head` is a copy of the current update in this
   * cursor's own buffer (rewritten by each `advance`); the update after it is read ahead, so a
   * key knows whether the run holds more of it.
   */
  private final class RunCursor(parts: Iterator[PartFile]) {
    private val project = UnsafeProjection.create(layout)
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
        rows = rowsOf(part)
      }
      if (rows.hasNext) rows.next() else null
    }
  }
}
