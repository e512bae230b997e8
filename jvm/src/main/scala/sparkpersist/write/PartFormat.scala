package sparkpersist.write

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.mapreduce.Job
import org.apache.parquet.hadoop.ParquetOutputFormat
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{MetadataBuilder, StructField, StructType}

import sparkpersist.shard.{ReservedColumns, ShardSchema, ShardState}

/**
 * How a shard's parts are laid out as Parquet files, so that a part read alone describes itself:
 *  - columns: the data columns in schema order, then `time` and `diff` (bigint);
 *  - Parquet field ids: each data column's stable column id, and
 *    [[ReservedColumns.TimeFieldId]] / [[ReservedColumns.DiffFieldId]] for `time` / `diff`;
 *  - footer key/value metadata: [[FormatVersionKey]], [[SchemaKey]], [[OrderByKey]], [[ShardKey]].
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

  /** Field metadata key Spark's Parquet writer reads field ids from. */
  val FieldIdKey = "parquet.field.id"

  private[write] val footerKeys = Seq(FormatVersionKey, SchemaKey, OrderByKey, ShardKey)

  private def withId(field: StructField, id: Int): StructField =
    field.copy(metadata = new MetadataBuilder().withMetadata(field.metadata).putLong(FieldIdKey, id).build())

  /** The data columns, each carrying its stable column id as field metadata. */
  def logicalSchema(schema: ShardSchema): StructType =
    StructType(schema.columns.map(c => withId(c.toField, c.id)))

  /** The Parquet schema of a part: data columns then `time` and `diff`, all with field ids. */
  def partSchema(schema: ShardSchema): StructType = {
    val Seq(time, diff) = ReservedColumns.fields
    StructType(logicalSchema(schema).fields ++
      Seq(withId(time, ReservedColumns.TimeFieldId), withId(diff, ReservedColumns.DiffFieldId)))
  }

  /** The footer key/value metadata of every part of `shard`. */
  def footer(shard: String, schema: ShardSchema): Map[String, String] = Map(
    FormatVersionKey -> ShardState.FormatVersion.toString,
    SchemaKey -> logicalSchema(schema).json,
    OrderByKey -> schema.orderBy.mkString(","),
    ShardKey -> shard)

  /**
   * The Hadoop configuration write tasks use: exactly what `df.write.parquet` would use in this
   * session (compression, timestamp encoding, ...), with field ids switched on and the footer of
   * `shard` handed to [[PartWriteSupport]].
   */
  def hadoopConf(spark: SparkSession, shard: String, schema: ShardSchema): Configuration = {
    val job = Job.getInstance(spark.sparkContext.hadoopConfiguration)
    val conf = job.getConfiguration
    spark.conf.getAll.foreach { case (k, v) => conf.set(k, v) }
    conf.set(SQLConf.PARQUET_FIELD_ID_WRITE_ENABLED.key, "true")
    new ParquetFileFormat().prepareWrite(spark, job, Map.empty, partSchema(schema))
    conf.set(SQLConf.PARQUET_FIELD_ID_WRITE_ENABLED.key, "true")
    ParquetOutputFormat.setWriteSupportClass(job, classOf[PartWriteSupport])
    footer(shard, schema).foreach { case (k, v) => conf.set(k, v) }
    conf
  }
}
