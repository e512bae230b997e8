package sparkpersist.read

import java.io.File

import org.apache.spark.sql.Row
import org.apache.spark.sql.classic.SparkSession

import sparkpersist.schema.{ReservedColumns, ShardSchema}

/**
 * Writes Parquet parts the way a shard stores them (fields named by Parquet field id), with
 * Spark's own Parquet writer, for tests of the read path that need exact control over each
 * part's rows and order.
 */
object ParquetParts {

  /** Writes `updates` (data columns, then time, then diff) in the given order as one part. */
  def write(spark: SparkSession, schema: ShardSchema, updates: Seq[Row], dir: File): PartFile = {
    val fileSchema = PartFileReader.fileSchema(schema, schema.dataSchema)
    val out = new File(dir, java.util.UUID.randomUUID().toString)
    spark.createDataFrame(spark.sparkContext.parallelize(updates, 1), fileSchema)
      .write.parquet(out.getPath)
    val file = out.listFiles().filter(_.getName.endsWith(".parquet")).head
    val timeIndex = fileSchema.fieldIndex(ReservedColumns.Time)
    val maxTime = if (updates.isEmpty) Long.MinValue else updates.map(_.getLong(timeIndex)).max
    PartFile(file.toURI.toString, file.length(), maxTime)
  }
}
