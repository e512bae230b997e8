package sparkpersist.iceberg

import org.apache.hadoop.fs.Path
import org.apache.iceberg.{DeleteFile, FileFormat, FileMetadata, MetadataColumns, PartitionSpec}
import org.apache.parquet.example.data.simple.SimpleGroupFactory
import org.apache.parquet.hadoop.ParquetFileWriter
import org.apache.parquet.hadoop.example.ExampleParquetWriter
import org.apache.parquet.schema.{LogicalTypeAnnotation, MessageType, PrimitiveType, Types}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.col

import sparkpersist.schema.ReservedColumns
import sparkpersist.shard.ShardHandle

/**
 * The Iceberg position delete file of one run's retractions by position ([[RunDeletes]]): a Parquet
 * file of `(file_path, pos)` rows, sorted, with Iceberg's reserved field ids, naming every row the
 * run's positions file retracts and every retraction of the run's parts (their rows whose diff is not
 * +1, found by reading their `diff` column once, in one Spark job). It is written with the Parquet
 * library Spark ships (Iceberg's own Parquet writer, iceberg-parquet, would bring a second Parquet
 * beside Spark's), under `metadata/deletes/`, named after the positions file: a file never changes
 * once committed, so writing it again (after a failed attempt) writes the same rows.
 */
object PositionDeletes {
  private val FilePath = MetadataColumns.DELETE_FILE_PATH
  private val Pos = MetadataColumns.DELETE_FILE_POS

  private val fileSchema: MessageType = Types.buildMessage()
    .addField(Types.required(PrimitiveType.PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType())
      .id(FilePath.fieldId()).named(FilePath.name()))
    .addField(Types.required(PrimitiveType.PrimitiveTypeName.INT64).id(Pos.fieldId()).named(Pos.name()))
    .named("position_deletes")

  /** Where the delete file of the run whose positions file is `key` goes. */
  def path(shard: ShardHandle, key: String): Path =
    shard.fs.makeQualified(new Path(new Path(shard.dir, IcebergTables.MetadataDir + "/deletes"), key.replace('/', '-') + ".parquet"))

  /** Writes the delete file of `run` and returns it as Iceberg's metadata of it. */
  def write(spark: SparkSession, shard: ShardHandle, run: RunDeletes): DeleteFile = {
    val target = path(shard, run.key)
    fileOf(shard, target, writeRows(shard, target, targets(shard, run) ++ retractions(spark, shard, run)))
  }

  /** Writes `rows` (data file path, position), sorted, as a position delete file at `target`; returns how many. */
  def writeRows(shard: ShardHandle, target: Path, rows: Seq[(String, Long)]): Long = {
    val writer = ExampleParquetWriter.builder(target).withConf(shard.fs.getConf).withType(fileSchema)
      .withWriteMode(ParquetFileWriter.Mode.OVERWRITE).build()
    val groups = new SimpleGroupFactory(fileSchema)
    try rows.sorted.foreach { case (file, pos) => writer.write(groups.newGroup().append(FilePath.name(), file).append(Pos.name(), pos)) }
    finally writer.close()
    rows.size.toLong
  }

  /** The position delete file at `target`, of `records` rows, as Iceberg's metadata of it. */
  def fileOf(shard: ShardHandle, target: Path, records: Long): DeleteFile =
    FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned()).ofPositionDeletes()
      .withPath(target.toString).withFormat(FileFormat.PARQUET)
      .withFileSizeInBytes(shard.fs.getFileStatus(target).getLen).withRecordCount(records).build()

  /** The rows the positions file retracts, by the data file path Iceberg knows each part by. */
  private def targets(shard: ShardHandle, run: RunDeletes): Seq[(String, Long)] =
    run.positions.targets.toSeq.flatMap { case (key, positions) =>
      val uri = IcebergTables.dataPath(shard, key)
      val out = Seq.newBuilder[(String, Long)]
      positions.foreach(p => out += uri -> p)
      out.result()
    }

  /** The positions of the retractions (diff other than +1) in the run's parts: one Spark job over their `diff` column. */
  private def retractions(spark: SparkSession, shard: ShardHandle, run: RunDeletes): Seq[(String, Long)] = {
    val byName = run.retracting.map(p => new Path(p.fileKey).getName -> IcebergTables.dataPath(shard, p.fileKey)).toMap
    spark.read.schema(s"${ReservedColumns.Diff} BIGINT").parquet(byName.values.toSeq: _*)
      .where(col(ReservedColumns.Diff) =!= 1L)
      .select(col("_metadata.file_name"), col("_metadata.row_index"))
      .collect().toSeq.map(r => byName(r.getString(0)) -> r.getLong(1))
  }
}
