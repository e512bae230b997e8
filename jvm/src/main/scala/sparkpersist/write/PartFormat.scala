package sparkpersist.write

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.mapreduce.Job
import org.apache.parquet.hadoop.ParquetOutputFormat
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{StructField, StructType}

import sparkpersist.PersistConf
import sparkpersist.schema.{NestedFieldIds, NestedNullability, ReservedColumns, ShardSchema}
import sparkpersist.shard.ShardState
import sparkpersist.util.SqlSettings

/**
 * How a shard's parts are laid out as Parquet files, so that a part read alone describes itself:
 *  - columns: the data columns in schema order, then `time` and `diff` (bigint) — except in a
 *    *stamped* part, whose updates all have one time and diff +1 (an append stamped with its
 *    commit time): it stores only the data columns and names its time in the footer
 *    ([[TimeKey]]), so the two reserved columns cost nothing to write or read;
 *  - Parquet field ids: each data column's stable column id, each field inside its structs its
 *    id where it has one ([[NestedFieldIds]]), and
 *    [[ReservedColumns.TimeFieldId]] / [[ReservedColumns.DiffFieldId]] for `time` / `diff`;
 *  - footer key/value metadata: [[FormatVersionKey]], [[SchemaKey]], [[OrderByKey]], [[ShardKey]],
 *    and [[TimeKey]] in stamped parts.
 */
object PartFormat {
  /** Footer key: the part format version ([[ShardState.FormatVersion]]). */
  val FormatVersionKey = "sparkpersist.format.version"
  /** Footer key: the shard's logical schema, a Spark StructType JSON whose fields carry their ids. */
  val SchemaKey = "sparkpersist.schema"
  /** Footer key: the shard's order key, comma-separated column names. */
  val OrderByKey = "sparkpersist.orderBy"
  /** Footer key: the shard's name. */
  val ShardKey = "sparkpersist.shard"
  /**
   * Footer key of a stamped part: the time (epoch milliseconds) of every update in it, each with
   * diff +1; the part has no `time` and `diff` columns.
   */
  val TimeKey = "sparkpersist.time"

  /** Field metadata key Spark's Parquet writer reads field ids from. */
  val FieldIdKey = "parquet.field.id"

  private[write] val footerKeys = Seq(FormatVersionKey, SchemaKey, OrderByKey, ShardKey, TimeKey)

  private def withId(field: StructField, id: Int): StructField = NestedFieldIds.withId(field, FieldIdKey, id)

  /**
   * The data columns, each carrying its stable column id as field metadata, and each field inside
   * their structs its id ([[NestedFieldIds]]) where it has one. With `relaxed`, every level inside
   * a column is nullable ([[NestedNullability]]).
   */
  def logicalSchema(schema: ShardSchema, relaxed: Boolean = false): StructType =
    StructType(schema.columns.map { c =>
      val stored = if (relaxed) NestedNullability.relaxed(c.dataType) else c.dataType
      withId(c.toField.copy(dataType = NestedFieldIds.annotate(stored, c.fieldIds, FieldIdKey)), c.id)
    })

  /**
   * The Parquet schema of a part, all fields with ids: the data columns, then `time` and `diff`
   * unless the part is stamped. Every level inside a column is optional, whatever the shard
   * declares ([[NestedNullability]]): a null there is then stored as a null, never as a value left
   * out of a `required` field, which no reader could read back. Top-level columns keep their
   * nullability (every writer checks top-level NOT NULL before a row reaches a part).
   */
  def partSchema(schema: ShardSchema, stamped: Boolean): StructType =
    if (stamped) logicalSchema(schema, relaxed = true)
    else {
      val Seq(time, diff) = ReservedColumns.fields
      StructType(logicalSchema(schema, relaxed = true).fields ++
        Seq(withId(time, ReservedColumns.TimeFieldId), withId(diff, ReservedColumns.DiffFieldId)))
    }

  /** The footer key/value metadata of the parts of `shard`, stamped with `stampTime` if given. */
  def footer(shard: String, schema: ShardSchema, stampTime: Option[Long]): Map[String, String] = Map(
    FormatVersionKey -> ShardState.FormatVersion.toString,
    SchemaKey -> logicalSchema(schema).json,
    OrderByKey -> schema.orderBy.mkString(","),
    ShardKey -> shard) ++ stampTime.map(TimeKey -> _.toString)

  /**
   * Session settings that would change the values a part stores, pinned whatever the session says,
   * since a write must read back identical in any session: `TIMESTAMP_MILLIS` would drop the
   * microseconds of timestamps, and `LEGACY` rebasing would move dates and timestamps before
   * 1582-10-15 into the hybrid Julian calendar, which lacks the days 1582-10-05 to 1582-10-14.
   * Parts store timestamps as Parquet's standard `TIMESTAMP(MICROS)`, and every date and time in
   * the proleptic Gregorian calendar, as Spark itself has them.
   */
  val ExactValueSettings: Map[String, String] = Map(
    SQLConf.PARQUET_OUTPUT_TIMESTAMP_TYPE.key -> SQLConf.ParquetOutputTimestampType.TIMESTAMP_MICROS.toString,
    SQLConf.PARQUET_REBASE_MODE_IN_WRITE.key -> "CORRECTED",
    SQLConf.PARQUET_INT96_REBASE_MODE_IN_WRITE.key -> "CORRECTED")

  /**
   * Bytes kept of a row group's string min and max, and both stay under Parquet's 4 KiB limit on
   * statistics. Past `boundChars` code points (4 bytes each at most), a margin: Parquet bumps a
   * truncated max at its last code point that can be bumped, and the part's upper bound is the
   * one it would be from the whole max only when that code point lies past the bound's own.
   */
  def statisticsTruncateBytes(boundChars: Int): Int = math.min(4L * boundChars + 64, 2000L).toInt

  /**
   * Runs `body`, which creates a part's Parquet writer, with [[ExactValueSettings]] in force: Spark's
   * Parquet writer takes the timestamp type from the Hadoop configuration ([[hadoopConf]]) but the
   * rebase modes from the SQL configuration of the thread (in a task, the settings of the SQL
   * execution that runs it, if any).
   */
  def withExactValues[T](body: => T): T = SqlSettings.withSettings(ExactValueSettings)(body)

  /**
   * The Hadoop configuration write tasks use: what `df.write.parquet` would use in this session
   * (compression, ...) but for [[ExactValueSettings]], with field ids switched on and the footer
   * of `shard` handed to [[PartWriteSupport]]. With `stampTime`, the parts are stamped with it.
   * Unless the user set it, row group statistics of strings are truncated to
   * [[statisticsTruncateBytes]]: a part's string bounds are read from them ([[PartFileBounds]]),
   * and Parquet drops, rather than truncates, the statistics of longer values by default.
   */
  def hadoopConf(spark: SparkSession, shard: String, schema: ShardSchema, stampTime: Option[Long]): Configuration = {
    val job = Job.getInstance(spark.sparkContext.hadoopConfiguration)
    val conf = job.getConfiguration
    val settings = spark.conf.getAll
    settings.foreach { case (k, v) => conf.set(k, v) }
    conf.set(SQLConf.PARQUET_FIELD_ID_WRITE_ENABLED.key, "true")
    new ParquetFileFormat().prepareWrite(spark, job, Map.empty, partSchema(schema, stampTime.isDefined))
    conf.set(SQLConf.PARQUET_FIELD_ID_WRITE_ENABLED.key, "true")
    ExactValueSettings.foreach { case (k, v) => conf.set(k, v) }
    if (conf.get(ParquetOutputFormat.STATISTICS_TRUNCATE_LENGTH) == null) {
      conf.setInt(ParquetOutputFormat.STATISTICS_TRUNCATE_LENGTH,
        statisticsTruncateBytes(PersistConf.StringBoundChars.get(settings).toInt))
    }
    ParquetOutputFormat.setWriteSupportClass(job, classOf[PartWriteSupport])
    footer(shard, schema, stampTime).foreach { case (k, v) => conf.set(k, v) }
    conf
  }
}
