package sparkpersist.write

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.mapreduce.Job
import org.apache.parquet.hadoop.ParquetOutputFormat
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.internal.SQLConf

import sparkpersist.PersistConf
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.PartFormat
import sparkpersist.util.SqlSettings

/**
 * The Parquet settings parts are written with, in the layout of [[PartFormat]]: values stored
 * exactly whatever the session says, field ids on, string statistics kept, the footer handed to
 * [[PartWriteSupport]].
 */
object PartWriteSettings {
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
    new ParquetFileFormat().prepareWrite(spark, job, Map.empty, PartFormat.partSchema(schema, stampTime.isDefined))
    conf.set(SQLConf.PARQUET_FIELD_ID_WRITE_ENABLED.key, "true")
    ExactValueSettings.foreach { case (k, v) => conf.set(k, v) }
    if (conf.get(ParquetOutputFormat.STATISTICS_TRUNCATE_LENGTH) == null) {
      conf.setInt(ParquetOutputFormat.STATISTICS_TRUNCATE_LENGTH,
        statisticsTruncateBytes(PersistConf.StringBoundChars.get(settings).toInt))
    }
    ParquetOutputFormat.setWriteSupportClass(job, classOf[PartWriteSupport])
    PartFormat.footer(shard, schema, stampTime).foreach { case (k, v) => conf.set(k, v) }
    conf
  }
}
