package sparkpersist.consolidate

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, RowOrdering, UnsafeProjection}
import org.apache.spark.sql.types.StructType

import sparkpersist.errors.{PersistError, PersistThrowable}
import sparkpersist.read.{OpenFiles, PartFile, PartFileReader}
import sparkpersist.schema.ShardSchema

/**
 * Consolidation on read (seed 004): the runs of a shard merged ([[RunMerge]]) with the diffs of
 * every distinct data row (with time <= as-of) summed, each row emitted as many times as its
 * positive net multiplicity. Rows whose updates cancel are dropped; a negative net multiplicity
 * means the shard retracts more than it inserted and is an error, as in Materialize.
 *
 * The writer sorts every run by the shard's order key first (then time and, for update writes,
 * the other data columns), so the merge key is the order key ([[MergeKey]]): all updates of one
 * data row meet in the merge's sums of one order-key value. Memory is one cursor per run plus one
 * key's sums; a shard without an order key is a single key, consolidated in memory (one entry per
 * distinct row). A run out of order-key order is reported, never silently mis-consolidated.
 *
 * A merge may see only some of the runs' updates (`updates` of each part): consolidation is exact
 * for every data row all of whose updates it sees, which is how parallel reads split the work
 * ([[ConsolidationPlan]]: each task keeps the rows of its share, all updates of a row included).
 *
 * @param updateSchema every data column of the shard, then time and diff: the layout of updates
 *                     (emitted rows have it too; their data columns are the consolidated row, valid
 *                     until the next `hasNext` or `next`)
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

  private val diffOrdinal = updateSchema.length - 1
  private val projectData = UnsafeProjection.create((0 until diffOrdinal - 1).map(i =>
    BoundReference(i, updateSchema(i).dataType, updateSchema(i).nullable)))
  private val sums = new RunMerge(shard, updateSchema, MergeKey.ordinals(schema, updateSchema), runs, updates).sums()

  /** The current consolidated row, and how many of its copies are still to be emitted. */
  private var row: InternalRow = _
  private var remaining = 0L

  override def hasNext: Boolean = {
    while (remaining == 0 && sums.hasNext) {
      val sum = sums.next()
      val count = sum.getLong(diffOrdinal)
      if (count < 0 && complete) throw new NegativeMultiplicity(shard, asOf, count)
      if (count > 0) { row = sum; remaining = count }
    }
    remaining > 0
  }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException("consolidated snapshot exhausted")
    remaining -= 1
    if (copyRows) projectData(row).copy() else row
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
  extends IllegalStateException with PersistThrowable {
  override def error: PersistError =
    PersistError("PERSIST_INCONSISTENT_UPDATES", "shard" -> shard, "asOf" -> asOf, "count" -> count)
}

/** A run whose rows are not in merge-key order cannot be consolidated by a streaming merge. */
final class UnsortedRun(val shard: String, val path: String)
  extends IllegalStateException(
    s"Part $path of shard '$shard' is not sorted by the shard's order key, so it cannot be " +
      "consolidated. It was not written by the sparkpersist writer or is corrupt.")
