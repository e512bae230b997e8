package sparkpersist.read

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.hadoop.ParquetInputFormat
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.execution.datasources.{FileFormat, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFileFormat, ParquetReadSupport, ParquetUtils}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.util.SerializableConfiguration
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector
import org.apache.spark.sql.types.{LongType, StructField, StructType}

import sparkpersist.positional.DroppedPositions
import sparkpersist.schema.{NestedFieldIds, ReservedColumns, ShardSchema}
import sparkpersist.shard.PartMeta

/**
 * One part as an executor reads it: its file, size and latest time; `verify` marks a part read
 * only because pushdown is soft (the filter ruled it out): its rows are checked ([[SoftCheck]]);
 * `provenTrue` a part on which the scan's filter was proven true (soft mode checks every row passes).
 * `constantTime` is set when every update of the part is an insert at that one time (its stats
 * say so): then its `time` and `diff` are not read from the file (a stamped part has none).
 * `key` is the part's key in the shard ([[PartMeta.key]]; empty for a file outside any shard).
 * `start` and `length` delimit the bytes of the file this read covers: it reads the row groups
 * whose middle lies there (the whole file by default; see [[PartPacking]]). `minTime` is the
 * part's earliest time (a read of the updates from a time on checks rows only below it).
 * `constantDiff` is every update's diff when the time is constant: +1, or -1 for a negated part
 * ([[PartMeta.negated]]), which reads its original's file. A snapshot read applying positional
 * retractions ([[sparkpersist.positional.PositionalSnapshot]]) leaves out the rows at `dropped`
 * and, when `insertsOnly`, every update whose diff is not positive. `restampTime` is the time of
 * every update of a rebased part ([[PartMeta.rebasedFrom]]), whose file holds another: its diffs
 * are read from the file, its times are not.
 */
final case class PartFile(path: String, bytes: Long, maxTime: Long, verify: Boolean = false,
    constantTime: Option[Long] = None, key: String = "", start: Long = 0L, length: Long = Long.MaxValue,
    minTime: Long = Long.MinValue, provenTrue: Boolean = false, constantDiff: Long = 1L, retracts: Boolean = false,
    dropped: DroppedPositions = DroppedPositions.None, insertsOnly: Boolean = false,
    restampTime: Option[Long] = None) {
  /** The bytes of the file this read covers. */
  def splitBytes: Long = math.min(length, bytes - start)

  /**
   * Whether Parquet gets the scan's filters for this part: not for a part read to be verified
   * (every row must reach the check), nor for one proven true (no row group to skip, and soft mode
   * checks every row).
   */
  def takesFilters: Boolean = !verify && !provenTrue

  /** Whether a read leaves rows of the file out by position or diff ([[PositionalRows]]). */
  def leavesOut: Boolean = !dropped.isEmpty || insertsOnly
}

object PartFile {
  /**
   * The part file of `part`, at `path`. With `visibleAsOf` (a read that never shows `time`, the
   * snapshot), an insert-only part whose updates are all visible then is read as constant time
   * too: its `diff` is +1 everywhere and its time is not needed, so neither is decoded.
   */
  def of(path: String, part: PartMeta, verify: Boolean, visibleAsOf: Option[Long] = None,
      provenTrue: Boolean = false, dropped: DroppedPositions = DroppedPositions.None,
      insertsOnly: Boolean = false): PartFile = {
    val constant = part.negated ||
      (!part.hasRetractions && (part.minTime == part.maxTime || visibleAsOf.exists(part.maxTime <= _)))
    PartFile(path, part.bytes, part.maxTime, verify, if (constant) Some(part.maxTime) else None, part.key,
      minTime = part.minTime, provenTrue = provenTrue, constantDiff = if (part.negated) -1L else 1L,
      retracts = part.hasRetractions && !insertsOnly, dropped = dropped, insertsOnly = insertsOnly,
      restampTime = part.rebasedFrom.filter(_ => !constant).map(_ => part.minTime))
  }
}

/**
 * Reads parts with Spark's own vectorized Parquet reader ([[VectorizedPartOpener]]), as rows or
 * as columnar batches. Columns are matched by Parquet field id, so a part written under an older
 * column name still reads correctly. Every read yields the requested data columns followed by
 * `time` and `diff`: [[schema]]. For a part of constant time, the reader appends those two as
 * constant columns, as Spark does partition values. Filters handed to a read skip the part's
 * row groups (and pages) that cannot hold a row passing them; they never drop a row that may
 * pass, and callers re-check them (Spark does, above the scan).
 *
 * A reader built `withPositions` returns each row's position in its file as the column
 * [[PartFileReader.PositionColumn]] between the data columns and `time` ([[RowPositions]]), and
 * leaves out the rows a [[PartFile]] drops ([[PositionalRows]]). It reads those positions for a
 * part that drops rows, and for every part when `positionsOfEveryPart` (a row-level operation's
 * scan names each row's source); filters skip whole row groups of such parts, never pages.
 * Other parts get -1 as their rows' positions.
 *
 * When the session disables the vectorized reader for these columns, parts are read with
 * Spark's row-based Parquet reader instead, as rows only and without filters.
 *
 * Built on the driver (it broadcasts the Hadoop configuration), used on executors. Rows are
 * reused by the underlying reader: copy a row before keeping it past the next `next()`.
 */
final class PartFileReader private (
    vectorized: Option[VectorizedPartOpener],
    fallback: Option[(PartitionedFile => Iterator[InternalRow], PartitionedFile => Iterator[InternalRow])],
    val schema: StructType,
    positionsOfEveryPart: Boolean) extends Serializable {

  private val dataSchema = StructType(schema.fields.dropRight(ReservedColumns.fields.length))
  private val positionOrdinal = schema.fieldNames.indexOf(PartFileReader.PositionColumn)
  /** What is requested from the files: the schema without the positions, which the reader adds. */
  private val (fullJson, dataJson) = {
    def fromFile(s: StructType) = StructType(s.filterNot(_.name == PartFileReader.PositionColumn)).json
    (fromFile(schema), fromFile(dataSchema))
  }
  private val reserved = StructType(ReservedColumns.fields)

  /** Ordinal of `time` in [[schema]]. */
  def timeOrdinal: Int = schema.length - 2

  /** Ordinal of `diff` in [[schema]]. */
  def diffOrdinal: Int = schema.length - 1

  /** Whether [[batchesOf]] can read parts (Spark's vectorized reader supports the columns). */
  def readsBatches: Boolean = vectorized.isDefined

  /**
   * The updates of `file` with `from <= time <= asOf` (no per-row check when the whole part
   * qualifies). The file closes itself once read to the end; `open` closes it if its reader
   * stops earlier.
   */
  def rowsAsOf(file: PartFile, asOf: Long, open: OpenFiles, filters: Seq[Filter] = Nil,
      from: Long = Long.MinValue): Iterator[InternalRow] =
    file.constantTime match {
      case Some(t) if t > asOf || t < from => Iterator.empty
      case Some(_) => read(file, open, filters, batches = false).asInstanceOf[Iterator[InternalRow]]
      case None =>
        val all = read(file, open, filters, batches = false).asInstanceOf[Iterator[InternalRow]]
        if (file.maxTime <= asOf && file.minTime >= from) all
        else all.filter { row =>
          val t = row.getLong(timeOrdinal)
          t <= asOf && t >= from
        }
    }

  /**
   * The updates of `file` as columnar batches of [[schema]]; only for a part whose updates are
   * all visible as of `asOf` (its `maxTime <= asOf`, or a constant time): batches are not
   * filtered by time. Requires [[readsBatches]].
   */
  def batchesOf(file: PartFile, asOf: Long, open: OpenFiles, filters: Seq[Filter] = Nil): Iterator[ColumnarBatch] = {
    require(file.constantTime.fold(file.maxTime <= asOf)(_ => true), s"part ${file.path} is not wholly visible as of $asOf")
    if (file.constantTime.exists(_ > asOf)) Iterator.empty
    else read(file, open, filters, batches = true).asInstanceOf[Iterator[ColumnarBatch]]
  }

  private def read(file: PartFile, open: OpenFiles, filters: Seq[Filter], batches: Boolean): Iterator[AnyRef] = {
    val values = file.constantTime.fold(InternalRow.empty)(t => InternalRow(t, file.constantDiff))
    val split = PartitionedFile(values, SparkPath.fromUrlString(file.path), file.start, file.length,
      Array.empty[String], 0L, file.bytes)
    UnreadablePart.guard(file.path) {
      val positions = positionOrdinal >= 0 && (positionsOfEveryPart || !file.dropped.isEmpty)
      // A rebased part's times are set batch by batch: its rows are read as batches, then split.
      val asBatches = batches || (file.restampTime.isDefined && vectorized.isDefined)
      val opened = (vectorized, fallback) match {
        case (Some(opener), _) =>
          val (requested, constants) = if (file.constantTime.isDefined) (dataJson, reserved) else (fullJson, StructType(Nil))
          if (positionOrdinal < 0) opener.open(split, requested, constants, filters, asBatches, open.stats)
          else opener.open(split, requested, constants, filters, batches = true, open.stats,
            Some(positionOrdinal).filter(_ => positions))
        case (None, Some((all, data))) =>
          require(positionOrdinal < 0, "positions are read by the vectorized reader only")
          if (file.constantTime.isDefined) data(split) else all(split)
        case _ => throw new IllegalStateException("no reader")
      }
      opened match {
        case c: AutoCloseable => open.register(c)
        case _ =>
      }
      val positionedRead = positioned(opened, positions, asBatches)
      val read = file.restampTime.fold(positionedRead)(restamped(positionedRead, _, asBatches))
      val out = if (asBatches && !batches) read.flatMap(_.asInstanceOf[ColumnarBatch].rowIterator().asScala) else read
      keptOf(file, out, batches)
    }
  }

  /** The batches (or rows) read, every update's time set to `time` (of a rebased part). */
  private def restamped(read: Iterator[AnyRef], time: Long, batches: Boolean): Iterator[AnyRef] =
    if (batches) read.map { b =>
      val batch = b.asInstanceOf[ColumnarBatch]
      val columns = Array.tabulate[org.apache.spark.sql.vectorized.ColumnVector](batch.numCols())(batch.column)
      val times = new ConstantColumnVector(batch.numRows(), LongType)
      times.setLong(time)
      columns(timeOrdinal) = times
      new ColumnarBatch(columns, batch.numRows())
    }
    else read.map { r =>
      val row = r.asInstanceOf[InternalRow]
      row.setLong(timeOrdinal, time)
      row
    }

  /**
   * What a file opened as batches (rows without positions) reads as: its batches or rows, with
   * the positions column, read (`readPositions`) or -1.
   */
  private def positioned(opened: Iterator[AnyRef], readPositions: Boolean, batches: Boolean): Iterator[AnyRef] =
    if (positionOrdinal < 0) opened
    else {
      val read = opened.asInstanceOf[Iterator[ColumnarBatch]]
      val withPositions = if (readPositions) read else read.map(RowPositions.unknown(_, positionOrdinal))
      if (batches) withPositions else withPositions.flatMap(_.rowIterator().asScala)
    }

  /** The batches or rows of `file` it keeps ([[PositionalRows]]). */
  private def keptOf(file: PartFile, read: Iterator[AnyRef], batches: Boolean): Iterator[AnyRef] =
    if (!file.leavesOut) read
    else {
      require(positionOrdinal >= 0 || file.dropped.isEmpty, s"part ${file.path} drops rows, and this reader reads no positions")
      val kept = new PositionalRows(file, positionOrdinal, diffOrdinal)
      if (batches) read.asInstanceOf[Iterator[ColumnarBatch]].map(kept.of)
      else read.asInstanceOf[Iterator[InternalRow]].filter(kept.keeps)
    }
}

/**
 * The part files a reader (one task) has opened, closed together when the reader closes, and
 * what reading them cost ([[PartReadStats]]).
 */
final class OpenFiles extends AutoCloseable {
  private val files = scala.collection.mutable.ArrayBuffer.empty[AutoCloseable]

  val stats = new PartReadStats

  def register(file: AutoCloseable): Unit = files += file

  override def close(): Unit = {
    files.foreach(_.close())
    files.clear()
  }
}

object PartFileReader {

  /** The column of a row's position in its file (-1 where not read). */
  val PositionColumn: String = "_persist_position"

  /**
   * A reader of `dataColumns` (a subset of `shardSchema`'s columns, by name), then, `withPositions`,
   * each row's position in its file ([[PositionColumn]]; read for every part when
   * `positionsOfEveryPart`, else for parts that drop rows), then time and diff. Positions need
   * Spark's vectorized reader ([[readsPositions]]).
   */
  def apply(spark: SparkSession, shardSchema: ShardSchema, dataColumns: StructType,
      withPositions: Boolean = false, positionsOfEveryPart: Boolean = false): PartFileReader = {
    val schema = {
      val s = fileSchema(shardSchema, dataColumns)
      if (!withPositions) s
      else StructType(s.fields.dropRight(ReservedColumns.fields.length) ++
        Seq(StructField(PositionColumn, org.apache.spark.sql.types.LongType, nullable = false)) ++
        s.fields.takeRight(ReservedColumns.fields.length))
    }
    val conf = spark.sessionState.conf
    val hadoopConf: Configuration = spark.sessionState.newHadoopConf()
    hadoopConf.setBoolean(SQLConf.PARQUET_FIELD_ID_READ_ENABLED.key, true)
    // Parts carry page checksums (Parquet writes them by default): a damaged page fails its read
    // instead of decoding to other values.
    hadoopConf.setBoolean(ParquetInputFormat.PAGE_VERIFY_CHECKSUM_ENABLED, true)
    require(!withPositions || readsPositions(spark, shardSchema), "positions are read by the vectorized reader only")
    if (ParquetUtils.isBatchReadSupportedForSchema(conf, schema)) {
      readSettings(hadoopConf, conf)
      val broadcast = spark.sparkContext.broadcast(new SerializableConfiguration(hadoopConf))
      new PartFileReader(Some(new VectorizedPartOpener(broadcast, VectorizedPartOpener.Settings.of(conf))), None, schema,
        positionsOfEveryPart)
    } else {
      // Each reader gets its own configuration: Spark's Parquet reader records its schemas in it.
      def reader(fromFile: StructType, constants: StructType) = new ParquetFileFormat().buildReaderWithPartitionValues(
        spark, fromFile, constants, fromFile, Nil, Map(FileFormat.OPTION_RETURNING_BATCH -> "false"),
        new Configuration(hadoopConf))
      // Spark's row reader keeps the footer to itself: the part's format is checked by reading it first.
      val footerConf = spark.sparkContext.broadcast(new SerializableConfiguration(hadoopConf))
      def checked(read: PartitionedFile => Iterator[InternalRow]): PartitionedFile => Iterator[InternalRow] = { file =>
        UnsupportedPartFormat.checkFooter(file.toPath, footerConf.value.value)
        read(file)
      }
      val data = StructType(schema.fields.dropRight(ReservedColumns.fields.length))
      new PartFileReader(None, Some((checked(reader(schema, new StructType())),
        checked(reader(data, StructType(ReservedColumns.fields))))), schema, positionsOfEveryPart = false)
    }
  }

  /** Whether readers of `shardSchema`'s data columns can read positions: Spark's vectorized reader takes every column. */
  def readsPositions(spark: SparkSession, shardSchema: ShardSchema): Boolean =
    ParquetUtils.isBatchReadSupportedForSchema(spark.sessionState.conf, fileSchema(shardSchema, shardSchema.dataSchema))

  /** The settings Spark's Parquet scan puts in its Hadoop configuration (`ParquetFileFormat.setupHadoopConf`). */
  private def readSettings(hadoopConf: Configuration, conf: SQLConf): Unit = {
    hadoopConf.set(ParquetInputFormat.READ_SUPPORT_CLASS, classOf[ParquetReadSupport].getName)
    hadoopConf.set(SQLConf.SESSION_LOCAL_TIMEZONE.key, conf.sessionLocalTimeZone)
    hadoopConf.setBoolean(SQLConf.NESTED_SCHEMA_PRUNING_ENABLED.key, conf.nestedSchemaPruningEnabled)
    hadoopConf.setBoolean(SQLConf.CASE_SENSITIVE.key, conf.caseSensitiveAnalysis)
    hadoopConf.setBoolean(SQLConf.PARQUET_BINARY_AS_STRING.key, conf.isParquetBinaryAsString)
    hadoopConf.setBoolean(SQLConf.PARQUET_INT96_AS_TIMESTAMP.key, conf.isParquetINT96AsTimestamp)
    hadoopConf.setBoolean(SQLConf.PARQUET_INFER_TIMESTAMP_NTZ_ENABLED.key, conf.parquetInferTimestampNTZEnabled)
    hadoopConf.setBoolean(SQLConf.LEGACY_PARQUET_NANOS_AS_LONG.key, conf.legacyParquetNanosAsLong)
    hadoopConf.setBoolean(SQLConf.PARQUET_READER_RESPECT_UNKNOWN_TYPE_ANNOTATION.key,
      conf.parquetReaderRespectUnknownTypeAnnotation)
  }

  /**
   * `dataColumns` then time and diff, each field carrying its Parquet field id, and each field
   * inside their structs its id where it has one ([[NestedFieldIds]]; one without is matched by name).
   */
  private[sparkpersist] def fileSchema(shardSchema: ShardSchema, dataColumns: StructType): StructType = {
    val data = dataColumns.fields.map { f =>
      val column = shardSchema.column(f.name).getOrElse(
        throw new IllegalArgumentException(s"'${f.name}' is not a column of the shard"))
      withFieldId(f.copy(dataType = NestedFieldIds.annotate(f.dataType, column.fieldIds,
        ParquetUtils.FIELD_ID_METADATA_KEY)), column.id)
    }
    val reserved = ReservedColumns.fields.map { f =>
      withFieldId(f, if (f.name == ReservedColumns.Time) ReservedColumns.TimeFieldId else ReservedColumns.DiffFieldId)
    }
    StructType(data ++ reserved)
  }

  private def withFieldId(field: StructField, id: Int): StructField =
    NestedFieldIds.withId(field, ParquetUtils.FIELD_ID_METADATA_KEY, id)
}
