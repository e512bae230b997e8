package sparkpersist.write

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow

import sparkpersist.PersistConf
import sparkpersist.schema.{JsonColumns, ShardSchema}
import sparkpersist.shard.PartFormat
import sparkpersist.stats.StatsBudget

/**
 * Everything a write task needs, shipped from the driver: where the batch's parts go, the shard's
 * schema, the Parquet configuration, and the part size limit.
 *
 * @param batchDir  directory of this batch's parts (nothing else lives there)
 * @param budget    fits each part's stats into `spark.sparkpersist.stats.budgetBytes`
 * @param stampTime for append-only writes stamped with the commit time: the rows hold only the
 *                  data columns, and the parts are stamped with this time (see [[PartFormat]]:
 *                  they store no `time` and `diff`). Absent: rows end with `time` and `diff`.
 * @param castZone  when string columns get cast stats: the time zone their timestamps are parsed in
 * @param indexed   ids of the columns whose parts get membership filters (`index_columns`)
 * @param autoIndexValues most values of an automatic membership filter ([[sparkpersist.stats.AutoIndex]]);
 *                  0: none
 */
final case class RunSpec(
    batchDir: String,
    schema: ShardSchema,
    conf: SerializableConf,
    maxRowsPerPart: Long,
    boundChars: Int,
    stampTime: Option[Long],
    budget: StatsBudget,
    castZone: Option[String] = None,
    indexed: Set[Int] = Set.empty,
    autoIndexValues: Int = 0) {

  /** Part `seq` of the run written by task attempt (`partition`, `attempt`). */
  def partPath(partition: Int, attempt: Int, seq: Int): Path =
    new Path(batchDir, f"part-$partition%05d-$seq%04d-a$attempt.parquet")

  /** This spec, writing the parts of another batch, into `dir`. */
  def inBatchDir(dir: Path): RunSpec = copy(batchDir = dir.toString)

  /**
   * This spec of stamped parts ([[PartWriteSettings.hadoopConf]] with a stamp time), stamping them with
   * `time` instead: one configuration serves runs of different stamps.
   */
  def stampedAt(time: Long): RunSpec = {
    require(stampTime.isDefined, "only a spec of stamped parts can be stamped with another time")
    val restamped = new org.apache.hadoop.conf.Configuration(conf.value)
    restamped.set(PartFormat.TimeKey, time.toString)
    copy(conf = new SerializableConf(restamped), stampTime = Some(time))
  }
}

object RunSpec {
  /**
   * The spec of a write with `options` (`sparkpersist.write`'s or a DSv2 write's,
   * [[DataSourceWriteOptions]]) in `spark`'s session: [[forSession]] with its part size, the
   * columns whose stats are kept and those indexed; fails on a column that is not the shard's,
   * or on JSON columns other than the shard's.
   */
  def forWrite(spark: SparkSession, shardName: String, schema: ShardSchema, batchDir: Path, options: WriteOptions,
      stampTime: Option[Long]): RunSpec = {
    JsonColumns.checkWrite(shardName, schema, options.jsonColumns)
    val keepStats = WriteInput.keepStatsIds(shardName, schema, options.keepStats)
    val indexed = WriteInput.keepStatsIds(shardName, schema, options.indexColumns, "index_columns")
    forSession(spark, shardName, schema, batchDir, options.maxRowsPerPart, stampTime, keepStats, indexed)
  }

  /**
   * The spec of a write in `spark`'s session: Parquet settings as `df.write.parquet` would use
   * them, `maxRowsPerPart` (default `spark.sparkpersist.write.maxRowsPerPart`), the string
   * bound length, the stats budget and whether to collect cast stats (in the session's time zone)
   * from the session's configuration; the budget trims the stats of the `keepStats` column ids
   * last, and of the `indexed` ones, which get membership filters (unless `protectIndexed` is
   * false: then the budget drops their filters first, as automatic ones). The schema's index columns
   * (the table property `sparkpersist.indexColumns`) are indexed and protected in every write.
   * Other columns get automatic filters as `spark.sparkpersist.stats.autoIndexValues` says.
   */
  def forSession(spark: SparkSession, shardName: String, schema: ShardSchema, batchDir: Path,
      maxRowsPerPart: Option[Long], stampTime: Option[Long], keepStats: Set[Int] = Set.empty,
      indexed: Set[Int] = Set.empty, protectIndexed: Boolean = true): RunSpec = {
    val settings = spark.conf.getAll
    val named = schema.indexedIds
    val protectedIds = if (protectIndexed) indexed ++ named else named
    RunSpec(
      batchDir.toString,
      schema,
      new SerializableConf(PartWriteSettings.hadoopConf(spark, shardName, schema, stampTime)),
      maxRowsPerPart.getOrElse(PersistConf.MaxRowsPerPart.get(settings)),
      PersistConf.StringBoundChars.get(settings).toInt,
      stampTime,
      new StatsBudget(schema, keepStats ++ protectedIds, PersistConf.StatsBudgetBytes.get(settings), protectedIds),
      if (PersistConf.CastStats.get(settings)) Some(spark.sessionState.conf.sessionLocalTimeZone) else None,
      indexed ++ named,
      PersistConf.AutoIndexValues.get(settings).toInt)
  }
}

/**
 * Writes one run: the (already sorted) rows of one task, as consecutive parts of at most
 * `maxRowsPerPart` rows each, refusing a null inside a column where the shard declares NOT NULL
 * ([[NotNullInside]]). On failure, every part this attempt started is deleted.
 */
final class RunWriter(spec: RunSpec, partition: Int, attempt: Int) {
  private val done = ArrayBuffer.empty[WrittenPart]
  private var current: PartWriter = _
  private var currentPath: Path = _
  private val notNullInside = NotNullInside.of(spec.schema).orNull

  def write(row: InternalRow): Unit = {
    if (notNullInside != null) notNullInside.check(row)
    if (current == null) {
      currentPath = spec.partPath(partition, attempt, done.size)
      current = new PartWriter(currentPath, spec.conf.value, spec.schema, spec.boundChars, spec.stampTime,
        spec.budget, spec.castZone, spec.indexed, spec.autoIndexValues)
    }
    current.write(row)
    if (current.rowCount >= spec.maxRowsPerPart) finishPart()
  }

  private def finishPart(): Unit = {
    val part = current
    current = null
    done += part.close()
  }

  /** Ends the current part, if any, so that the next row starts a new one; returns how many parts are done. */
  def cut(): Int = {
    if (current != null) finishPart()
    done.size
  }

  /** Closes the last part; returns the run's parts in order (empty for an empty input). */
  def close(): Seq[WrittenPart] = {
    if (current != null) finishPart()
    done.toSeq
  }

  /** Deletes every part of this attempt, finished or not. */
  def abort(): Unit = {
    if (current != null) current.abort()
    val fs = new Path(spec.batchDir).getFileSystem(spec.conf.value)
    (done.map(p => new Path(p.path)) ++ Option(currentPath)).foreach { p =>
      try fs.delete(p, false) catch { case _: Exception => () }
    }
    current = null
  }
}

object RunWriter {
  /** Writes all of `rows` as one run, deleting this attempt's parts if anything fails. */
  def writeAll(spec: RunSpec, partition: Int, attempt: Int, rows: Iterator[InternalRow]): Seq[WrittenPart] =
    writeRuns(spec, partition, attempt, rows)(_ => false).flatten

  /**
   * Writes `rows` as consecutive runs, deleting this attempt's parts if anything fails: a row for
   * which `startsRun` holds starts a new part and a new run (a clustered batch's runs,
   * [[sparkpersist.cluster]]). Returns the runs' parts in order, without empty runs.
   */
  def writeRuns(spec: RunSpec, partition: Int, attempt: Int, rows: Iterator[InternalRow])(
      startsRun: InternalRow => Boolean): Seq[Seq[WrittenPart]] = {
    val run = new RunWriter(spec, partition, attempt)
    try {
      val starts = ArrayBuffer[Int](0)
      rows.foreach { row =>
        if (startsRun(row)) starts += run.cut()
        run.write(row)
      }
      val parts = run.close()
      starts.zip(starts.drop(1) :+ parts.size).map { case (from, until) => parts.slice(from, until) }
        .filter(_.nonEmpty).toSeq
    } catch {
      case t: Throwable =>
        run.abort()
        throw t
    }
  }
}
