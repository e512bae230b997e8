package sparkpersist.compact

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Greatest, JoinedRow, Literal, UnsafeProjection, UnsafeRow}

import sparkpersist.consolidate.{MergeKey, RunMerge}
import sparkpersist.read.{OpenFiles, PartFile, PartFileReader}
import sparkpersist.schema.ShardSchema

/**
 * The rows of the one sorted run that replaces a [[MergeGroup]], computed in its task: the
 * updates of every run of the group merged by the shard's order key, then time ([[RunMerge]]);
 * times below `advanceTo` advanced to it (a monotone change, so the order holds); and, when
 * `consolidate`, the updates of equal data and time summed, zero sums dropped. Rows come in the
 * part layout ([[sparkpersist.write.PartFormat]]): data columns, time, diff — or the data
 * columns only when `stamped` (the group has no retractions and one time: its parts are
 * stamped). Memory: one row per run, plus, when consolidating, one group of equal order key and
 * time (a shard without an order key groups by time alone).
 */
object CompactedRows {

  def apply(shard: String, schema: ShardSchema, reader: PartFileReader, runs: Seq[Seq[PartFile]],
      advanceTo: Long, consolidate: Boolean, stamped: Boolean, open: OpenFiles): Iterator[InternalRow] = {
    val layout = reader.schema
    def column(i: Int) = BoundReference(i, layout(i).dataType, layout(i).nullable)
    val data = (0 until reader.timeOrdinal).map(column)
    val keyOrdinals = MergeKey.ordinals(schema, layout) :+ reader.timeOrdinal
    val merged = new RunMerge(shard, reader, Long.MaxValue, runs, keyOrdinals, open)

    val advance = UnsafeProjection.create(
      data ++ Seq(Greatest(Seq(column(reader.timeOrdinal), Literal(advanceTo))), column(reader.diffOrdinal)))
    val advanced: Iterator[InternalRow] = merged.map(advance(_))

    if (stamped) {
      val projectData = UnsafeProjection.create(data)
      advanced.map(projectData(_))
    } else if (!consolidate) {
      advanced
    } else {
      val byKeyAndTime = RunMerge.ordering(layout, keyOrdinals)
      val dataAndTime = UnsafeProjection.create(data :+ column(reader.timeOrdinal))
      val output = UnsafeProjection.create(layout.fields.indices.map(column))
      val joined = new JoinedRow
      RunMerge.groups(advanced.map(_.asInstanceOf[UnsafeRow].copy()))(byKeyAndTime.compare(_, _) == 0)
        .flatMap { group =>
          val sums = mutable.LinkedHashMap.empty[UnsafeRow, Long]
          group.foreach { u =>
            val key = dataAndTime(u).copy()
            sums.update(key, sums.getOrElse(key, 0L) + u.getLong(reader.diffOrdinal))
          }
          sums.iterator.collect { case (key, diff) if diff != 0 => output(joined(key, InternalRow(diff))) }
        }
    }
  }
}
