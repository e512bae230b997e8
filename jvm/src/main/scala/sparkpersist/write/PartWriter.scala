package sparkpersist.write

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.{TaskAttemptID, TaskID, TaskType}
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.parquet.ParquetOutputWriter

import sparkpersist.schema.{JsonColumns, ShardSchema}
import sparkpersist.shard.{PartFormat, PartMeta}
import sparkpersist.stats.{AutoIndex, FileBounds, PartStatsCollector, StatsBudget, TimeStamp}

/** A finished part: where it was written, and its metadata (`key` still empty). */
final case class WrittenPart(path: String, meta: PartMeta)

/**
 * Writes one part: feeds each row to Spark's Parquet writer and to the part's stats collector in
 * the same loop, so the stats cost no second pass, then fits the stats into the `budget`. The
 * bounds of string columns are those Parquet keeps anyway, read from the footer once the file is
 * closed ([[PartFileBounds]]): each string value is compared once, by Parquet, not twice. Rows
 * have the layout of [[PartFormat.partSchema]]: data columns, then `time`, then `diff` — or only
 * the data columns when the part is stamped with `stampTime` (the configuration `conf` must say
 * the same).
 *
 * With a `castZone`, string columns also get cast stats, their timestamps parsed in that zone;
 * the `indexed` column ids get membership filters, and other columns [[AutoIndex]] picks get
 * filters of at most `autoIndexValues` values (0: none).
 *
 * The file is created, never overwritten: a part path that already exists is an error.
 */
final class PartWriter(path: Path, conf: Configuration, schema: ShardSchema, boundChars: Int,
    stampTime: Option[Long], budget: StatsBudget, castZone: Option[String] = None,
    indexed: Set[Int] = Set.empty, autoIndexValues: Int = 0) {
  private val stats = new PartStatsCollector(
    schema.columns.map(_.id).toArray,
    schema.columns.map(_.dataType).toArray,
    stampTime.map(TimeStamp.Stamped).getOrElse(TimeStamp.InRow(schema.columns.length, schema.columns.length + 1)),
    boundChars,
    jsonText = i => JsonColumns.isDeclared(schema.columns(i)),
    castZone = castZone,
    indexed = i => indexed(schema.columns(i).id),
    autoIndexed = i => AutoIndex.candidate(schema.columns(i)),
    autoIndexValues = autoIndexValues,
    boundsFromFile = true)
  private val writer =
    PartWriteSettings.withExactValues(new ParquetOutputWriter(path.toString, PartWriter.taskContext(conf)))

  def rowCount: Long = stats.rowCount

  def write(row: InternalRow): Unit = {
    stats.update(row)
    writer.write(row)
  }

  /** Closes the file and returns the part with its stats. */
  def close(): WrittenPart = {
    writer.close()
    val file = path.getFileSystem(conf).getFileStatus(path)
    val bytes = file.getLen
    val fileBounds =
      if (stats.fileBoundOrdinals.isEmpty || stats.rowCount == 0) Map.empty[Int, FileBounds]
      else PartFileBounds.read(file, conf, stats.fileBoundOrdinals.map(i => i -> schema.columns(i).id).toMap)
    WrittenPart(path.toString, PartMeta(
      key = "",
      rowCount = stats.rowCount,
      bytes = bytes,
      minTime = stats.minTime,
      maxTime = stats.maxTime,
      hasRetractions = stats.hasRetractions,
      stats = Some(budget(stats.result(bytes, fileBounds.get)))))
  }

  /** Closes the file, swallowing errors: used only on a failure path before deleting it. */
  def abort(): Unit =
    try writer.close() catch { case _: Throwable => () }
}

object PartWriter {
  /** The Parquet writer needs a task attempt context; only its configuration matters. */
  private def taskContext(conf: Configuration) =
    new TaskAttemptContextImpl(conf, new TaskAttemptID(new TaskID("sparkpersist", 0, TaskType.MAP, 0), 0))
}
