package sparkpersist.dml

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.spark.{SparkEnv, TaskContext}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, GenericInternalRow, InterpretedOrdering, SortOrder, UnsafeProjection}
import org.apache.spark.sql.connector.write.{DeltaWriter, DeltaWriterFactory, WriterCommitMessage}
import org.apache.spark.sql.execution.UnsafeExternalRowSorter
import org.apache.spark.sql.types.StructType
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.util.collection.unsafe.sort.PrefixComparators

import sparkpersist.positional.{DroppedPositions, RetractedPositions}
import sparkpersist.shard.PartFormat
import sparkpersist.write.{RunCommitMessage, RunSpec, RunWriter, WrittenPart}

/**
 * Creates the writer of each task of a row-level operation.
 *
 * @param time     the statement's commit time, every update's time
 * @param sortKeys the columns parts are sorted by (`WriteInput.sortKeys`), in the part layout
 */
final class RetractionWriterFactory(spec: RunSpec, time: Long, sortKeys: Seq[String]) extends DeltaWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DeltaWriter[InternalRow] = {
    val attempt = Option(TaskContext.get()).map(_.attemptNumber()).getOrElse(0)
    new RetractionWriter(spec, time, sortKeys, partitionId, attempt)
  }
}

/**
 * Turns what Spark hands one task of a row-level operation into updates at `time`: a deleted row
 * (its values come in the `_persist_row` metadata column) into `(row, time, -1)`, an inserted one
 * into `(row, time, +1)`, an updated one into both. Rows arrive in no particular order; parts must
 * be sorted, so they go through Spark's external sorter (spilling to disk as Spark's own sorts
 * do) and are written as one run when the task commits ([[RunWriter]]).
 *
 * When every deleted row names the stored row it was read from (`_persist_row_source`), each
 * once, the run's positions file records them ([[RetractedPositions]]) and its parts that hold
 * retractions refer to it ([[sparkpersist.shard.PartMeta.positions]]): a snapshot read can then
 * leave those rows out by position. Otherwise the retractions cancel rows by value, as any.
 */
final class RetractionWriter(spec: RunSpec, time: Long, sortKeys: Seq[String], partition: Int, attempt: Int)
  extends DeltaWriter[InternalRow] {

  private val layout: StructType = PartFormat.partSchema(spec.schema, stamped = false)
  private val width = spec.schema.dataSchema.length
  private val dataTypes = spec.schema.dataSchema.fields.map(_.dataType)
  private val update = new GenericInternalRow(width + 2)
  private val toUnsafe = UnsafeProjection.create(layout)
  private val sorter: UnsafeExternalRowSorter = {
    val ordering = new InterpretedOrdering(sortKeys.map { name =>
      val at = layout.fieldIndex(name)
      SortOrder(BoundReference(at, layout(at).dataType, nullable = true), Ascending)
    })
    val noPrefix = new UnsafeExternalRowSorter.PrefixComputer {
      private val zero = new UnsafeExternalRowSorter.PrefixComputer.Prefix
      override def computePrefix(row: InternalRow): UnsafeExternalRowSorter.PrefixComputer.Prefix = zero
    }
    UnsafeExternalRowSorter.create(layout, ordering, PrefixComparators.LONG, noPrefix,
      SparkEnv.get.memoryManager.pageSizeBytes, false)
  }

  /** The positions of the stored rows deleted, by part key; `None` once a deleted row had no source. */
  private var sources: Option[java.util.HashMap[UTF8String, mutable.ArrayBuilder.ofLong]] = Some(new java.util.HashMap)

  override def delete(metadata: InternalRow, id: InternalRow): Unit = {
    add(metadata.getStruct(0, width), -1L)
    sources.foreach { bySource =>
      val source = if (metadata.isNullAt(1)) null else metadata.getStruct(1, 2)
      if (source == null || source.getLong(1) < 0) sources = None
      else {
        val part = source.getUTF8String(0)
        val positions = Option(bySource.get(part)).getOrElse {
          val created = new mutable.ArrayBuilder.ofLong
          bySource.put(part.clone(), created)
          created
        }
        positions += source.getLong(1)
      }
    }
  }

  override def insert(row: InternalRow): Unit = add(row, 1L)

  override def update(metadata: InternalRow, id: InternalRow, row: InternalRow): Unit = {
    delete(metadata, id)
    insert(row)
  }

  override def reinsert(metadata: InternalRow, row: InternalRow): Unit = insert(row)

  private def add(data: InternalRow, diff: Long): Unit = {
    var i = 0
    while (i < width) {
      update.update(i, if (data.isNullAt(i)) null else data.get(i, dataTypes(i)))
      i += 1
    }
    update.setLong(width, time)
    update.setLong(width + 1, diff)
    sorter.insertRow(toUnsafe(update))
  }

  override def commit(): WriterCommitMessage =
    try RunCommitMessage(withPositions(RunWriter.writeAll(spec, partition, attempt, sorter.sort())))
    finally sorter.cleanupResources()

  /**
   * `parts`, those holding retractions referring to the run's positions file, written now, when
   * every deleted row had a source and no source was deleted twice; else `parts` as they are.
   */
  private def withPositions(parts: Seq[WrittenPart]): Seq[WrittenPart] = {
    val retracting = parts.filter(_.meta.hasRetractions)
    val targets = sources.filter(_ => retracting.nonEmpty).flatMap { bySource =>
      val byPart = bySource.asScala.map { case (part, positions) => part.toString -> DroppedPositions.distinct(positions.result()) }
      if (byPart.valuesIterator.exists(_.isEmpty)) None else Some(byPart.map { case (part, p) => part -> p.get }.toMap)
    }
    targets.fold(parts) { t =>
      val file = new Path(spec.batchDir, f"positions-$partition%05d-a$attempt.bin")
      RetractedPositions(retracting.map(p => new Path(p.path).getName), t).write(file.getFileSystem(spec.conf.value), file)
      parts.map(p => if (p.meta.hasRetractions) p.copy(meta = p.meta.copy(positions = Some(file.toString))) else p)
    }
  }

  override def abort(): Unit = sorter.cleanupResources()

  override def close(): Unit = sorter.cleanupResources()
}
