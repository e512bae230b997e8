package sparkpersist.read

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.hadoop.mapred.FileSplit
import org.apache.hadoop.mapreduce.{JobID, TaskAttemptID, TaskID, TaskType}
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl
import org.apache.parquet.filter2.predicate.FilterApi
import org.apache.parquet.hadoop.{ParquetFileReader, ParquetInputFormat}
import org.apache.parquet.schema.{GroupType, MessageType}
import org.apache.spark.TaskContext
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.execution.datasources.{DataSourceUtils, PartitionedFile, RecordReaderIterator}
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFilters, ParquetFooterReader, ParquetOptions, ParquetReadSupport, ParquetUtils, VectorizedParquetRecordReader}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{DataType, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.util.SerializableConfiguration

import sparkpersist.shard.PartFormat

/**
 * Opens one part with Spark's vectorized Parquet reader, as Spark's own Parquet scan does
 * (`ParquetFileFormat.buildReaderWithPartitionValues`, Spark 4.1), with two differences: the
 * filters handed to Parquet are chosen per part (a part read only to be verified in soft mode
 * gets none), and the reader reports how many row groups the filters left it to read.
 *
 * The session settings the reader depends on are taken on the driver (`settings`); the Hadoop
 * configuration is broadcast once per scan. Built on the driver, used on executors.
 */
final class VectorizedPartOpener(conf: Broadcast[SerializableConfiguration], settings: VectorizedPartOpener.Settings)
  extends Serializable {

  /**
   * An iterator over `file` read as `requested` (a JSON [[StructType]] of the columns read from
   * the file, with field ids) followed by `constants` (read as constant columns with the values
   * of `partitionValues`): rows, or [[org.apache.spark.sql.vectorized.ColumnarBatch]]es when
   * `batches`. `filters` skip row groups (and pages) that cannot hold a row passing all of them.
   * With `positionAt` (batches), each batch gets its rows' positions in the file as a column
   * inserted at that ordinal ([[RowPositions]]); the filters then skip row groups, never pages.
   */
  def open(file: PartitionedFile, requested: String, constants: StructType, filters: Seq[Filter],
      batches: Boolean, stats: PartReadStats, positionAt: Option[Int] = None): Iterator[AnyRef] = {
    require(positionAt.isEmpty || batches, "positions are read as batches")
    val split = new FileSplit(file.toPath, file.start, file.length, Array.empty[String])
    val footer = ParquetFooterReader.openFileAndReadFooter(conf.value.value, file, true)
    val iterator = try {
      val meta = footer.footer.getFileMetaData
      val keyValues = meta.getKeyValueMetaData
      UnsupportedPartFormat.check(file.toPath.toString, Option(keyValues.get(PartFormat.FormatVersionKey)))
      val datetimeRebase = DataSourceUtils.datetimeRebaseSpec(k => keyValues.get(k), settings.datetimeRebaseMode)
      val int96Rebase = DataSourceUtils.int96RebaseSpec(k => keyValues.get(k), settings.int96RebaseMode)
      val pushed = if (!settings.filterPushdown || filters.isEmpty) None else {
        val parquetFilters = new ParquetFilters(meta.getSchema, settings.pushDownDate, settings.pushDownTimestamp,
          settings.pushDownDecimal, settings.pushDownStringPredicate, settings.pushDownInFilterThreshold,
          settings.caseSensitive, datetimeRebase)
        VectorizedPartOpener.sameColumns(filters, requested, meta.getSchema)
          .flatMap(parquetFilters.createFilter).reduceOption(FilterApi.and)
      }
      val convertTz =
        if (settings.int96TimestampConversion && !meta.getCreatedBy.startsWith("parquet-mr")) {
          DateTimeUtils.getZoneId(settings.sessionTimeZone)
        } else null
      val context = new TaskAttemptContextImpl(conf.value.value,
        new TaskAttemptID(new TaskID(new JobID(), TaskType.MAP, 0), 0))
      context.getConfiguration.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA, requested)
      pushed.foreach(ParquetInputFormat.setFilterPredicate(context.getConfiguration, _))
      // Rows are told apart by counting them: whole row groups may be skipped, pages may not.
      if (positionAt.isDefined) context.getConfiguration.setBoolean(ParquetInputFormat.COLUMN_INDEX_FILTERING_ENABLED, false)
      val reader = new VectorizedParquetRecordReader(convertTz, datetimeRebase.mode.toString, datetimeRebase.timeZone,
        int96Rebase.mode.toString, int96Rebase.timeZone, settings.offHeap && TaskContext.get() != null,
        settings.batchSize)
      val iterator = new RecordReaderIterator[AnyRef](reader)
      try {
        reader.initialize(split, context, Some(footer.inputFile), Some(footer.inputStream), Some(footer.footer))
        reader.initBatch(constants, file.partitionValues)
        if (batches) reader.enableReturningBatches()
        val total = footer.footer.getBlocks.size
        val groups = VectorizedPartOpener.rowGroups(reader)
        stats.add(total, groups.fold(total)(_.size))
        positionAt.fold[Iterator[AnyRef]](iterator) { at =>
          val positions = new RowPositions(file.filePath.toString, groups.getOrElse(
            throw new IllegalStateException(s"Cannot read the row groups of ${file.filePath}: rows cannot be told apart by position"))
            .map(g => g.getRowIndexOffset -> g.getRowCount))
          val read = iterator
          new Iterator[AnyRef] with AutoCloseable {
            override def hasNext: Boolean = read.hasNext
            override def next(): AnyRef = positions.insertInto(read.next().asInstanceOf[ColumnarBatch], at)
            override def close(): Unit = read.close()
          }
        }
      } catch {
        case e: Throwable =>
          iterator.close()
          throw e
      }
    } catch {
      case e: Throwable =>
        Try(footer.inputStream.close())
        throw e
    }
    iterator
  }
}

object VectorizedPartOpener {

  /** The session settings Spark's Parquet scan reads its files with, taken on the driver. */
  final case class Settings(
      datetimeRebaseMode: String,
      int96RebaseMode: String,
      int96TimestampConversion: Boolean,
      sessionTimeZone: String,
      offHeap: Boolean,
      batchSize: Int,
      filterPushdown: Boolean,
      pushDownDate: Boolean,
      pushDownTimestamp: Boolean,
      pushDownDecimal: Boolean,
      pushDownStringPredicate: Boolean,
      pushDownInFilterThreshold: Int,
      caseSensitive: Boolean)

  object Settings {
    def of(conf: SQLConf): Settings = {
      val options = new ParquetOptions(Map.empty[String, String], conf)
      Settings(options.datetimeRebaseModeInRead, options.int96RebaseModeInRead,
        conf.isParquetINT96TimestampConversion, conf.sessionLocalTimeZone, conf.offHeapColumnVectorEnabled,
        conf.parquetVectorizedReaderBatchSize, conf.parquetFilterPushDown, conf.parquetFilterPushDownDate,
        conf.parquetFilterPushDownTimestamp, conf.parquetFilterPushDownDecimal,
        conf.parquetFilterPushDownStringPredicate, conf.parquetFilterPushDownInFilterThreshold,
        conf.caseSensitiveAnalysis)
    }
  }

  /**
   * The filters that name, in the part, the columns they mean: Parquet filters resolve names in
   * the file, but columns and fields inside structs are matched by field id. A column or field
   * renamed since the part was written is under its old name there; one dropped and added again
   * under the same name has an old field of that name with another id, whose row-group statistics
   * say nothing of the new one. A filter over such a column is left out (its rows are still checked
   * above the scan).
   */
  private[read] def sameColumns(filters: Seq[Filter], requested: String, file: MessageType): Seq[Filter] = {
    val schema = DataType.fromJson(requested).asInstanceOf[StructType]
    filters.filter(_.references.forall(name => sameField(CatalystSqlParser.parseMultipartIdentifier(name), schema, file)))
  }

  /**
   * Whether each field on `path` has in `file` the id it has in `requested`, or, without one in
   * either, the same name (as the reader matches fields without ids).
   */
  private def sameField(path: Seq[String], requested: StructType, file: GroupType): Boolean = path match {
    case Seq() => true
    case Seq(name, rest @ _*) =>
      requested.find(_.name == name).filter(_ => file.containsField(name)).exists { f =>
        val inFile = file.getType(name)
        val id = if (f.metadata.contains(ParquetUtils.FIELD_ID_METADATA_KEY)) {
          Some(f.metadata.getLong(ParquetUtils.FIELD_ID_METADATA_KEY))
        } else None
        id == Option(inFile.getId).map(_.intValue().toLong) && (rest.isEmpty || ((f.dataType, inFile.isPrimitive) match {
          case (struct: StructType, false) => sameField(rest, struct, inFile.asGroupType())
          case _ => false
        }))
      }
  }

  private lazy val readerField = {
    val f = Class.forName("org.apache.spark.sql.execution.datasources.parquet.SpecificParquetRecordReaderBase")
      .getDeclaredField("reader")
    f.setAccessible(true)
    f
  }

  /**
   * The row groups an initialized reader will read (after its filters), in order: Spark keeps its
   * Parquet file reader to itself, so it is reached by reflection; `None` if that fails.
   */
  private def rowGroups(reader: VectorizedParquetRecordReader): Option[IndexedSeq[org.apache.parquet.hadoop.metadata.BlockMetaData]] = Try {
    val rowGroups = readerField.get(reader)
    val file = rowGroups.getClass.getDeclaredField("reader")
    file.setAccessible(true)
    file.get(rowGroups).asInstanceOf[ParquetFileReader].getRowGroups.asScala.toIndexedSeq
  }.toOption
}

/** Row groups of the parts one task opened, and how many of them it read (per task, not thread-safe). */
final class PartReadStats {
  var rowGroups = 0L
  var rowGroupsRead = 0L

  def add(total: Int, read: Int): Unit = {
    rowGroups += total
    rowGroupsRead += read
  }
}
