package sparkpersist.source

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, RowOrdering, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.StructType

import sparkpersist.schema.ShardSchema

/**
 * Consolidation on read (seed 004): a streaming k-way merge of a shard's runs ([[RunMerge]]) that
 * sums the diffs of every distinct data row (with time <= as-of) and emits each row as many times as its
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
 * @param reader    reads every data column of the shard, then time and diff
 * @param runs      the runs to merge, each a sequence of parts in run order
 * @param open      where the parts opened by the merge are registered for closing
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
    reader: PartFileReader,
    asOf: Long,
    runs: Seq[Seq[PartFile]],
    open: OpenFiles,
    complete: Boolean = true) extends Iterator[InternalRow] {

  private val dataWidth = reader.schema.length - 2
  private val projectData = UnsafeProjection.create(
    (0 until dataWidth).map(i => BoundReference(i, reader.schema(i).dataType, reader.schema(i).nullable)))
  private val merged = new RunMerge(shard, reader, asOf, runs, MergeKey.ordinals(schema, reader.schema), open)

  private val rows: Iterator[InternalRow] =
    RunMerge.groups(merged)(merged.sameKey).flatMap(consolidate)

  override def hasNext: Boolean = rows.hasNext

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException("consolidated snapshot exhausted")
    rows.next()
  }

  /** Sums the diffs of each distinct data row of one group of equal order key. */
  private def consolidate(group: Seq[UnsafeRow]): Iterator[InternalRow] = {
    val sums = mutable.LinkedHashMap.empty[UnsafeRow, Long]
    group.foreach { update =>
      val data = projectData(update).copy()
      sums.update(data, sums.getOrElse(data, 0L) + update.getLong(reader.diffOrdinal))
    }
    sums.iterator.flatMap { case (row, count) =>
      if (count < 0 && complete) throw new NegativeMultiplicity(shard, asOf, count)
      Multiplicity.repeat(row, count)
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
