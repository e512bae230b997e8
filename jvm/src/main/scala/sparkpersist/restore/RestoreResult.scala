package sparkpersist.restore

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.shard.{BatchMeta, ShardState}

/**
 * What a RESTORE did, as its one result row (Delta Lake's RESTORE reports the table's size and
 * files after it; a shard retracts rows instead of removing files): the shard, the version or time
 * restored and the as-of it read, the batch it committed (null when the shard already equalled the
 * target: nothing was committed), the rows it restored and retracted (copies), the parts and bytes
 * it added, and the shard's parts and bytes after it (negations, which write no file, not counted).
 */
final case class RestoreResult(shard: String, target: RestoreTarget, asOf: Long, batch: Option[BatchMeta],
    restoredRows: Long, retractedRows: Long, after: ShardState) {

  def row: InternalRow = {
    val files = after.parts.filterNot(_.negated).toSeq
    InternalRow(UTF8String.fromString(shard),
      target match { case RestoreTarget.Version(v) => Long.box(v); case _ => null },
      asOf, batch.map(b => UTF8String.fromString(b.id)).orNull, batch.map(b => Long.box(b.lower)).orNull,
      batch.map(b => Long.box(b.upper)).orNull, restoredRows, retractedRows, batch.fold(0)(_.partCount),
      batch.fold(0L)(_.bytes), files.map(_.bytes).sum, files.size)
  }
}

object RestoreResult {
  val Schema: StructType = StructType(Seq(
    StructField("shard", StringType, nullable = false),
    StructField("version", LongType),
    StructField("as_of", LongType, nullable = false),
    StructField("batch_id", StringType),
    StructField("lower", LongType),
    StructField("upper", LongType),
    StructField("num_restored_rows", LongType, nullable = false),
    StructField("num_retracted_rows", LongType, nullable = false),
    StructField("num_added_parts", IntegerType, nullable = false),
    StructField("added_bytes", LongType, nullable = false),
    StructField("table_size_after_restore", LongType, nullable = false),
    StructField("num_of_parts_after_restore", IntegerType, nullable = false)))
}
