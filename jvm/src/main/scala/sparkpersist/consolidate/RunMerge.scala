package sparkpersist.consolidate

import java.util.PriorityQueue

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.types.StructType

import sparkpersist.read.{OpenFiles, PartFile, PartFileReader}

/**
 * The streaming k-way merge of sorted runs (seed 004): the updates of every run with time <=
 * `asOf`, smallest merge key first, each row a private copy in the layout of `reader.schema`
 * (data columns, time, diff). Memory is one cursor (one row) per run.
 *
 * Every run must be sorted by the merge key, the columns at `keyOrdinals` (ascending, nulls
 * first, as the writer sorts); a run out of order is reported ([[UnsortedRun]]), never silently
 * mis-merged. [[sameKey]] tells whether two rows share a merge key, so that callers can take the
 * updates of one key as a group.
 */
final class RunMerge(
    shard: String,
    reader: PartFileReader,
    asOf: Long,
    runs: Seq[Seq[PartFile]],
    keyOrdinals: Seq[Int],
    open: OpenFiles) extends Iterator[UnsafeRow] {

  private val keyOrdering = RunMerge.ordering(reader.schema, keyOrdinals)
  private val copyUpdate = UnsafeProjection.create(reader.schema)

  private val heads = new PriorityQueue[RunCursor](math.max(1, runs.size),
    (a: RunCursor, b: RunCursor) => keyOrdering.compare(a.head, b.head))
  runs.foreach { parts =>
    val cursor = new RunCursor(parts.iterator)
    if (cursor.advance()) heads.add(cursor)
  }

  /** Whether `a` and `b` have equal merge keys. */
  def sameKey(a: InternalRow, b: InternalRow): Boolean = keyOrdering.compare(a, b) == 0

  override def hasNext: Boolean = !heads.isEmpty

  override def next(): UnsafeRow = {
    if (heads.isEmpty) throw new NoSuchElementException("merged runs exhausted")
    val cursor = heads.poll()
    val row = cursor.head
    if (cursor.advance()) heads.add(cursor)
    row
  }

  /** The updates of one run with time <= as-of, part after part, each head a private copy. */
  private final class RunCursor(parts: Iterator[PartFile]) {
    var head: UnsafeRow = _
    private var part: PartFile = _
    private var rows: Iterator[InternalRow] = Iterator.empty

    def advance(): Boolean = {
      while (!rows.hasNext && parts.hasNext) {
        part = parts.next()
        rows = reader.rowsAsOf(part, asOf, open)
      }
      if (!rows.hasNext) return false
      val next = copyUpdate(rows.next()).copy()
      if (head != null && keyOrdering.compare(head, next) > 0) throw new UnsortedRun(shard, part.path)
      head = next
      true
    }
  }
}

object RunMerge {
  /** The ascending, nulls-first ordering (as the writer sorts) of rows of `schema` by the columns at `ordinals`. */
  def ordering(schema: StructType, ordinals: Seq[Int]): LazilyGeneratedOrdering =
    new LazilyGeneratedOrdering(ordinals.map { i =>
      SortOrder(BoundReference(i, schema(i).dataType, schema(i).nullable), Ascending)
    })

  /**
   * Consecutive rows of `rows` for which `same(first, row)` holds, as one group each (`same`
   * compares a row with its group's first row).
   */
  def groups[R](rows: Iterator[R])(same: (R, R) => Boolean): Iterator[Seq[R]] = new Iterator[Seq[R]] {
    private val input = rows.buffered
    override def hasNext: Boolean = input.hasNext
    override def next(): Seq[R] = {
      val first = input.next()
      val group = Vector.newBuilder[R] += first
      while (input.hasNext && same(first, input.head)) group += input.next()
      group.result()
    }
  }
}
