package sparkpersist.cluster

import org.apache.spark.SparkEnv
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, GenericInternalRow, JoinedRow, SortOrder, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.execution.UnsafeExternalRowSorter
import org.apache.spark.sql.types.{IntegerType, StructField, StructType}
import org.apache.spark.util.collection.unsafe.sort.PrefixComparators

import sparkpersist.write.{RunSpec, RunWriter, WrittenPart}

/**
 * Writes the rows of a clustered batch, in one task: each row's bucket on the curve
 * ([[Layout]]) is computed, the rows are sorted by bucket, then by `keyOrdinals` (the order
 * key, then time: what every part is sorted by), then by `clusterOrdinals` (the clustering
 * columns) with Spark's external sorter (it spills under memory pressure, as a sort in a query
 * does), and each bucket is written as a run of its own ([[RunWriter.writeRuns]]): one part, more
 * when it passes the part size limit. Needs a task (the sorter takes the task's memory).
 *
 * The clustering columns only break ties of the order key and time, so every part stays sorted
 * by them as the merge of runs needs; inside a part they put a column of few values (a country)
 * into long runs and neighbouring values (a user id, an amount) next to each other, which
 * Parquet's run-length and dictionary encodings and the compression codec store in fewer bytes.
 *
 * @param schema the rows' layout, as the parts store them
 */
object ClusteredRuns {

  def write(spec: RunSpec, partition: Int, attempt: Int, schema: StructType, keyOrdinals: Seq[Int],
      clusterOrdinals: Seq[Int], layout: Layout, rows: Iterator[InternalRow]): Seq[Seq[WrittenPart]] = {
    val n = schema.length
    val bucketed = StructType(schema.fields :+ StructField("bucket", IntegerType, nullable = false))
    def column(i: Int) = BoundReference(i, bucketed(i).dataType, bucketed(i).nullable)
    val sortBy = n +: (keyOrdinals ++ clusterOrdinals.filterNot(keyOrdinals.contains))
    val ordering = new LazilyGeneratedOrdering(sortBy.map(i => SortOrder(column(i), Ascending)))
    val prefix = new UnsafeExternalRowSorter.PrefixComputer {
      private val out = new UnsafeExternalRowSorter.PrefixComputer.Prefix
      def computePrefix(row: InternalRow): UnsafeExternalRowSorter.PrefixComputer.Prefix = {
        out.value = row.getInt(n)
        out
      }
    }
    val sorter = UnsafeExternalRowSorter.create(bucketed, ordering, PrefixComparators.LONG, prefix,
      SparkEnv.get.memoryManager.pageSizeBytes, false)
    try {
      val bucket = new GenericInternalRow(1)
      val joined = new JoinedRow
      val withBucket = UnsafeProjection.create(bucketed)
      val sorted = sorter.sort(rows.map { row =>
        bucket.setInt(0, layout.bucketOf(row))
        withBucket(joined(row, bucket))
      })
      val withoutBucket = UnsafeProjection.create((0 until n).map(column))
      // Whether the row just taken from `out` starts a bucket: writeRuns asks right after taking it.
      var current = -1
      var starts = false
      val out = sorted.map { row =>
        val b = row.getInt(n)
        starts = current != -1 && b != current
        current = b
        withoutBucket(row)
      }
      RunWriter.writeRuns(spec, partition, attempt, out)(_ => starts)
    } finally sorter.cleanupResources()
  }
}
