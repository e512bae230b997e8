package sparkpersist.compact

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Greatest, Literal, UnsafeProjection}

import sparkpersist.consolidate.{MergeKey, RunMerge}
import sparkpersist.read.{OpenFiles, PartFile, PartFileReader}
import sparkpersist.schema.ShardSchema

/**
 * The rows of the one sorted run that replaces a [[MergeGroup]], computed in its task: the
 * updates of every run of the group, times below `advanceTo` advanced to it (a monotone change,
 * so each run stays sorted), merged by the shard's order key, then time ([[RunMerge]]); and, when
 * `consolidate`, the updates of equal data and time summed, zero sums dropped. Rows come in the
 * part layout ([[sparkpersist.shard.PartFormat]]): data columns, time, diff — or the data
 * columns only when `stamped` (the group has no retractions and one time: its parts are
 * stamped). Memory: one row per run, plus, when consolidating, the sums of one order key and
 * time (a shard without an order key groups by time alone).
 */
object CompactedRows {

  def apply(shard: String, schema: ShardSchema, reader: PartFileReader, runs: Seq[Seq[PartFile]],
      advanceTo: Long, consolidate: Boolean, stamped: Boolean, open: OpenFiles): Iterator[InternalRow] = {
    val layout = reader.schema
    def column(i: Int) = BoundReference(i, layout(i).dataType, layout(i).nullable)
    val data = (0 until reader.timeOrdinal).map(column)
    val advanced = data ++ Seq(Greatest(Seq(column(reader.timeOrdinal), Literal(advanceTo))), column(reader.diffOrdinal))
    // A projection per part: the merge reads ahead in every run at once.
    def rowsOf(part: PartFile) = reader.rowsAsOf(part, Long.MaxValue, open).map(UnsafeProjection.create(advanced))
    val merge = new RunMerge(shard, layout, MergeKey.ordinals(schema, layout) :+ reader.timeOrdinal, runs, rowsOf)

    if (stamped) merge.updates().map(UnsafeProjection.create(data))
    else if (!consolidate) merge.updates()
    else merge.sums()
  }
}
