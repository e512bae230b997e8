package sparkpersist.scan

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.sql.types.StructType

import sparkpersist.consolidate.{Cancellation, ColumnarCancellation, Consolidation, Multiplicity, RowShare}
import sparkpersist.plan.{ReadMode, RuntimeDecision, SoftCheck}
import sparkpersist.read.{OpenFiles, PartFile, PartFileReader}
import sparkpersist.schema.ShardSchema

/**
 * Parts read by one task; `runs` keeps each run's parts in run order. With a `share`, the task
 * merges the runs and consolidates the rows of that share; without, it reads the parts in turn.
 */
final case class PartsPartition(runs: IndexedSeq[IndexedSeq[PartFile]], share: Option[RowShare] = None,
    cancelInMemory: Boolean = false) extends InputPartition {
  def files: Iterator[PartFile] = runs.iterator.flatten
}

/**
 * Opens the readers of a [[PersistScan]] on executors.
 *
 * @param output ordinals, in `reader.schema`, of the columns the scan returns
 * @param softCheck in soft pushdown mode, the check of the parts read only to be verified
 * @param complete whether the scan reads every visible part (see [[Consolidation]])
 * @param runtime  what the scan's runtime filter changed since: `complete`, and the soft check
 * @param filters   filters handed to Parquet when reading parts straight (never for a part read
 *                  only to be verified); consolidation tasks hand it their key range instead
 * @param from      the earliest time read (a read of the updates from a time on; never consolidated)
 * @param identity  when the scan returns metadata columns ([[RowIdentity]]): the data columns, all
 *                  read, that make up `_persist_row` (`output` then holds -1 for metadata columns)
 */
final class PersistReaderFactory(
    shard: String,
    schema: ShardSchema,
    mode: ReadMode,
    reader: PartFileReader,
    asOf: Long,
    outputSchema: StructType,
    output: IndexedSeq[Int],
    softCheck: Option[SoftCheck] = None,
    complete: Boolean = true,
    runtime: RuntimeDecision = new RuntimeDecision,
    filters: Seq[Filter] = Nil,
    columnar: Boolean = false,
    from: Long = Long.MinValue,
    identity: Option[StructType] = None) extends PartitionReaderFactory {
  require(from == Long.MinValue || mode != ReadMode.ConsolidatedSnapshot, "a consolidated snapshot reads every time")

  /** Every partition of a columnar scan is read as batches ([[PersistScan.columnar]] decides). */
  override def supportColumnarReads(partition: InputPartition): Boolean = columnar

  /**
   * The batches of a partition's parts, as Spark's vectorized reader returns them, the output
   * columns picked out of each batch (`time` and `diff` of a stamped part constant vectors): read
   * straight (snapshot fast path or updates view, every update visible as of the as-of, every diff
   * +1 in a snapshot), or, for a consolidation task, with the rows its share does not keep and the
   * rows retractions cancel left out ([[ColumnarCancellation]]). Rows of parts read only to be
   * verified are checked on the way.
   */
  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] = {
    val parts = partition.asInstanceOf[PartsPartition]
    require(columnar, "this scan reads rows")
    val open = new OpenFiles
    val check = runtime.softCheck.orElse(softCheck).map(c => new c.Run)
    val identify = identity.map(new RowIdentityBatches(outputSchema, reader.schema, _))
    val project: Option[PartFile] => ColumnarBatch => ColumnarBatch = identify match {
      case Some(batches) => batches.of
      case None => _ => b => new ColumnarBatch(output.map(b.column).toArray, b.numRows)
    }
    val batches: Iterator[ColumnarBatch] = parts.share match {
      case None =>
        parts.files.flatMap { file =>
          val read = reader.batchesOf(file, asOf, open, if (file.takesFilters) filters else Nil)
          check.fold(read)(c => read.map { batch =>
            c(file, batch.rowIterator().asScala).foreach(_ => ())
            batch
          }).map(project(Some(file)))
        }
      case Some(share) =>
        require(parts.cancelInMemory, "a columnar consolidation task cancels in memory")
        val range = share.parquetFilters
        val (retracting, inserting) = parts.files.toSeq.partition(_.retracts)
        new ColumnarCancellation(shard, reader.schema, asOf, retracting, inserting, share.test,
          check.map(c => c(_, _)), reader.rowsAsOf(_, asOf, open, range),
          reader.batchesOf(_, asOf, open, range), complete && runtime.complete).map(project(None))
    }
    new IteratorReader(batches, open, check)
  }

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val parts = partition.asInstanceOf[PartsPartition]
    val open = new OpenFiles
    val check = runtime.softCheck.orElse(softCheck).map(c => new c.Run)
    def updates(file: PartFile): Iterator[InternalRow] = {
      val rows = reader.rowsAsOf(file, asOf, open, if (file.takesFilters) filters else Nil, from)
      check.fold(rows)(_(file, rows))
    }
    val identify = identity.map(new RowIdentityProjection(outputSchema, reader.schema, _))
    val project: Option[PartFile] => InternalRow => InternalRow = identify match {
      case Some(rows) => rows.of
      case None => _ =>
        val projection = new ProjectingInternalRow(outputSchema, output)
        row => { projection.project(row); projection }
    }
    val rows: Iterator[InternalRow] = (parts.share, mode) match {
      case (Some(share), _) =>
        // Only the share's rows are verified here: each row of a verified part is in one share.
        // Parquet may skip row groups outside the share's key range: their rows are another task's.
        val range = share.parquetFilters
        val shareOf = (file: PartFile) => {
          val kept = share.of(file, reader.rowsAsOf(file, asOf, open, range))
          check.fold(kept)(_(file, kept))
        }
        val consolidated =
          if (!parts.cancelInMemory) new Consolidation(shard, schema, reader.schema, asOf, parts.runs, shareOf, complete && runtime.complete)
          else {
            val (retracting, inserting) = parts.files.toSeq.partition(_.retracts)
            new Cancellation(shard, reader.schema, asOf, retracting, inserting, shareOf, complete && runtime.complete)
          }
        consolidated.map(project(None))
      case (None, ReadMode.Updates) =>
        parts.files.flatMap(updates).map(project(None))
      case (None, _) =>
        // Every update read here has diff +1 (a part without retractions, or a part's inserts):
        // each row stands for one stored row, whose position its source names.
        parts.files.flatMap { file =>
          updates(file).flatMap(row => Multiplicity.repeat(row, row.getLong(reader.diffOrdinal))).map(project(Some(file)))
        }
    }
    new IteratorReader(rows, open, check)
  }
}

/**
 * A partition reader over an iterator of rows or batches, each valid until the next `next()`,
 * closing the part files it opened and reporting their scan metrics.
 */
private final class IteratorReader[T](items: Iterator[T], open: OpenFiles, check: Option[SoftCheck#Run])
  extends PartitionReader[T] {
  private var current: T = _
  override def next(): Boolean = items.hasNext && { current = items.next(); true }
  override def get(): T = current
  override def close(): Unit = open.close()
  override def currentMetricsValues(): Array[CustomTaskMetric] = ScanMetrics.taskValues(open.stats, check)
}
