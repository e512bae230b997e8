package sparkpersist.source

import org.apache.hadoop.conf.Configuration
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.execution.datasources.{FileFormat, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFileFormat, ParquetUtils}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{MetadataBuilder, StructField, StructType}

import sparkpersist.schema.{ReservedColumns, ShardSchema}
import sparkpersist.shard.PartMeta

/**
 * One part as an executor reads it: its file, size and latest time; `verify` marks a part read
 * only because pushdown is soft (the filter ruled it out): its rows are checked ([[SoftCheck]]).
 * `constantTime` is set when every update of the part is an insert at that one time (its stats
 * say so): then its `time` and `diff` are not read from the file (a stamped part has none).
 * `key` is the part's key in the shard ([[PartMeta.key]]; empty for a file outside any shard).
 */
final case class PartFile(path: String, bytes: Long, maxTime: Long, verify: Boolean = false,
    constantTime: Option[Long] = None, key: String = "")

object PartFile {
  /** The part file of `part`, at `path`. */
  def of(path: String, part: PartMeta, verify: Boolean): PartFile =
    PartFile(path, part.bytes, part.maxTime, verify,
      if (part.minTime == part.maxTime && !part.hasRetractions) Some(part.maxTime) else None, part.key)
}

/**
 * Reads parts with Spark's own (vectorized) Parquet reader. Columns are matched by Parquet
 * field id, so a part written under an older column name still reads correctly. Every read
 * yields the requested data columns followed by `time` and `diff`: [[schema]]. For a part of
 * constant time, Spark's reader appends those two as constants, as it does partition values.
 *
 * Built on the driver (it broadcasts the Hadoop configuration), used on executors. Rows are
 * reused by the underlying reader: copy a row before keeping it past the next `next()`.
 */
final class PartFileReader private (
    read: PartitionedFile => Iterator[InternalRow],
    readData: PartitionedFile => Iterator[InternalRow],
    val schema: StructType) extends Serializable {

  /** Ordinal of `time` in [[schema]]. */
  def timeOrdinal: Int = schema.length - 2

  /** Ordinal of `diff` in [[schema]]. */
  def diffOrdinal: Int = schema.length - 1

  /**
   * The updates of `file` with time <= asOf (no per-row check when the whole part qualifies).
   * The file closes itself once read to the end; `open` closes it if its reader stops earlier.
   */
  def rowsAsOf(file: PartFile, asOf: Long, open: OpenFiles): Iterator[InternalRow] =
    file.constantTime match {
      case Some(t) if t > asOf => Iterator.empty
      case Some(t) => opened(readData(split(file, InternalRow(t, 1L))), open)
      case None =>
        val all = opened(read(split(file, InternalRow.empty)), open)
        if (file.maxTime <= asOf) all else all.filter(_.getLong(timeOrdinal) <= asOf)
    }

  /** A split of the whole file (so every row group is read), with these partition values. */
  private def split(file: PartFile, partitionValues: InternalRow): PartitionedFile =
    PartitionedFile(partitionValues, SparkPath.fromUrlString(file.path), 0L, Long.MaxValue,
      Array.empty[String], 0L, file.bytes)

  private def opened(rows: Iterator[InternalRow], open: OpenFiles): Iterator[InternalRow] = {
    rows match {
      case c: AutoCloseable => open.register(c)
      case _ =>
    }
    rows
  }
}

/** The part files a reader has opened, closed together when the reader closes. */
final class OpenFiles extends AutoCloseable {
  private val files = scala.collection.mutable.ArrayBuffer.empty[AutoCloseable]

  def register(file: AutoCloseable): Unit = files += file

  override def close(): Unit = {
    files.foreach(_.close())
    files.clear()
  }
}

object PartFileReader {

  /** A reader of `dataColumns` (a subset of `shardSchema`'s columns, by name) plus time and diff. */
  def apply(spark: SparkSession, shardSchema: ShardSchema, dataColumns: StructType): PartFileReader = {
    val schema = fileSchema(shardSchema, dataColumns)
    val hadoopConf: Configuration = spark.sessionState.newHadoopConf()
    hadoopConf.setBoolean(SQLConf.PARQUET_FIELD_ID_READ_ENABLED.key, true)
    // Each reader gets its own configuration: Spark's Parquet reader records its schemas in it.
    def reader(fromFile: StructType, constants: StructType) = new ParquetFileFormat().buildReaderWithPartitionValues(
      spark, fromFile, constants, fromFile, Nil, Map(FileFormat.OPTION_RETURNING_BATCH -> "false"),
      new Configuration(hadoopConf))
    val data = StructType(schema.fields.dropRight(ReservedColumns.fields.length))
    new PartFileReader(reader(schema, new StructType()), reader(data, StructType(ReservedColumns.fields)), schema)
  }

  /** `dataColumns` then time and diff, each field carrying its Parquet field id. */
  private[source] def fileSchema(shardSchema: ShardSchema, dataColumns: StructType): StructType = {
    val data = dataColumns.fields.map { f =>
      val column = shardSchema.column(f.name).getOrElse(
        throw new IllegalArgumentException(s"'${f.name}' is not a column of the shard"))
      withFieldId(f, column.id)
    }
    val reserved = ReservedColumns.fields.map { f =>
      withFieldId(f, if (f.name == ReservedColumns.Time) ReservedColumns.TimeFieldId else ReservedColumns.DiffFieldId)
    }
    StructType(data ++ reserved)
  }

  private def withFieldId(field: StructField, id: Int): StructField =
    field.copy(metadata = new MetadataBuilder().withMetadata(field.metadata)
      .putLong(ParquetUtils.FIELD_ID_METADATA_KEY, id).build())
}
