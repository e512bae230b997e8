package sparkpersist.iceberg

import java.nio.charset.StandardCharsets
import java.security.MessageDigest

import org.apache.hadoop.fs.Path
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.internal.SQLConf

import sparkpersist.read.PartFileReader
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{PartMeta, ShardHandle}

/**
 * The position delete file of a version whose retractions are not all by position: the rows of
 * `covered` that [[ValueMatching]] deletes, at `path`. Every visible part of the version not among
 * `covered` is an insert-only part of a later batch, whose rows all stay.
 */
final case class ValueDeletes(covered: IndexedSeq[PartMeta], path: Path, records: Long)

/**
 * Finds the [[ValueDeletes]] of a version, computing them once: the file is named after what it is
 * a function of (the keys of the parts it covers, in order, and the columns they are read as), so a
 * later version with the same parts — one that only appended insert-only batches since — reuses it
 * without reading a row. A version whose parts have no such form leaves a note of why beside it
 * (`.why`), reused the same way. The file is written under a temporary name and renamed into place, so
 * a file found under the name is complete.
 *
 * Covered are the visible parts of every batch up to the last one holding a retraction: a retraction
 * cancels a row inserted before it, and the parts after it only add rows.
 */
private[iceberg] object ValueDeletes {

  def of(spark: SparkSession, shard: ShardHandle, schema: ShardSchema,
      visible: IndexedSeq[PartMeta], batchOf: PartMeta => Int): Either[String, ValueDeletes] = {
    val last = visible.filter(_.hasRetractions).map(batchOf).max
    val covered = visible.filter(batchOf(_) <= last)
    val target = PositionDeletes.path(shard, s"values-${address(schema, covered)}")
    val why = new Path(target.getParent, target.getName.stripSuffix(".parquet") + ".why")
    if (shard.fs.exists(target)) Right(ValueDeletes(covered, target, recordsOf(shard, target)))
    else if (shard.fs.exists(why)) Left(TextFiles.read(shard.fs, why))
    else if (!PartFileReader.readsPositions(spark, schema)) {
      // The session's setting, not the parts: nothing is recorded, a session that reads positions writes it.
      Left(s"the session reads no row positions (${SQLConf.PARQUET_VECTORIZED_READER_ENABLED.key} is false), " +
        "which matching rows by value needs")
    } else {
      val files = covered.map(p => IcebergTables.dataPath(shard, p.fileKey))
      if (files.distinct.size < files.size) Left(written(shard, why, "two of its parts read one file"))
      else ValueMatching.deletes(spark, shard, schema, covered) match {
        case Left(reason) => Left(written(shard, why, reason))
        case Right(rows) =>
          val temporary = new Path(target.getParent, s".${target.getName}.${java.util.UUID.randomUUID()}")
          shard.fs.mkdirs(target.getParent)
          val records = PositionDeletes.writeRows(shard, temporary, rows.map { case (part, pos) => files(part) -> pos })
          if (!shard.fs.rename(temporary, target)) shard.fs.delete(temporary, false) // another session renamed it first
          Right(ValueDeletes(covered, target, records))
      }
    }
  }

  /** The name of the deletes of `covered` read as `schema`'s columns: a hash of both. */
  private def address(schema: ShardSchema, covered: IndexedSeq[PartMeta]): String = {
    val digest = MessageDigest.getInstance("SHA-256")
    schema.columns.foreach(c => digest.update(s"${c.id}:${c.dataType.catalogString}\n".getBytes(StandardCharsets.UTF_8)))
    covered.foreach(p => digest.update(s"${p.key}\n".getBytes(StandardCharsets.UTF_8)))
    digest.digest().take(16).map(b => f"$b%02x").mkString
  }

  private def recordsOf(shard: ShardHandle, file: Path): Long = {
    val reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, shard.fs.getConf))
    try reader.getRecordCount finally reader.close()
  }

  private def written(shard: ShardHandle, file: Path, reason: String): String = {
    TextFiles.write(shard.fs, file, reason)
    reason
  }
}
