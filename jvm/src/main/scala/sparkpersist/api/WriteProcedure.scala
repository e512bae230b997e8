package sparkpersist.api

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.{ProcedureParameter, UnboundProcedure}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.catalog.{RowsProcedure, SystemProcedures}
import sparkpersist.shard.ShardStore
import sparkpersist.write.WriteOptions

/** Offers [[WriteProcedure]] in the persist catalog's `system` namespace. */
final class WriteProcedures extends SystemProcedures {
  override def procedures(store: ShardStore): Seq[UnboundProcedure] = Seq(new WriteProcedure(store))
}

/**
 * `CALL persist.system.write(shard => 'events', source => '<table or view>', ...)`: `sparkpersist.write`
 * in SQL, for clients without py4j (Spark Connect, the Thrift server). The rows are those of
 * `source`, any name `spark.table` reads (a Connect client's DataFrame as a temporary view); the other
 * arguments are `sparkpersist.write`'s, by the same names (lists of columns as `ARRAY<STRING>`).
 *
 * The call commits one batch exactly as the classic write does ([[ShardWrites.write]]: the commit
 * time and the compare-and-set on the upper are [[sparkpersist.write.BatchCommit]]'s) and returns it
 * as its one row: `shard, batch_id, lower, upper, parts, rows`. That row is the batch this call
 * committed, whatever other writers commit meanwhile; a write of no rows returns an empty batch at
 * the shard's upper. A writer that lost the race to another fails with
 * [[sparkpersist.shard.UpperMismatch]], writing nothing.
 */
final class WriteProcedure(store: ShardStore) extends RowsProcedure("write",
    "Writes the rows of a table or view as one batch of a persist shard (creating it on first write), " +
      "as sparkpersist.write does, and returns the batch it committed.") {

  private val names = ArrayType(StringType)

  private val params: Seq[(String, DataType)] = Seq(
    "shard" -> StringType, "source" -> StringType, "time_col" -> StringType, "diff_col" -> StringType,
    "max_rows_per_part" -> LongType, "order_by" -> names, "json_columns" -> names, "keep_stats" -> names,
    "index_columns" -> names, "merge_schema" -> BooleanType, "cluster_by" -> names)

  private val required = Set("shard", "source")

  private val schema = StructType(Seq(
    StructField("shard", StringType, nullable = false), StructField("batch_id", StringType, nullable = false),
    StructField("lower", LongType, nullable = false), StructField("upper", LongType, nullable = false),
    StructField("parts", IntegerType, nullable = false), StructField("rows", LongType, nullable = false)))

  override def parameters(): Array[ProcedureParameter] = params.map { case (n, t) =>
    if (required(n)) ProcedureParameter.in(n, t).build()
    else ProcedureParameter.in(n, t).defaultValue(s"CAST(NULL AS ${t.sql})").build()
  }.toArray

  override def result(input: InternalRow): (StructType, Array[InternalRow]) = {
    def string(i: Int): Option[String] = if (input.isNullAt(i)) None else Some(input.getUTF8String(i).toString)
    def columns(i: Int): Option[Seq[String]] =
      if (input.isNullAt(i)) None
      else Some(input.getArray(i).toSeq[UTF8String](StringType).map(name => Option(name).map(_.toString).getOrElse(
        throw new IllegalArgumentException(s"persist.system.write: ${params(i)._1} holds a null; name columns."))))
    val Seq(shard, source) = Seq(0, 1).map(i => string(i).getOrElse(throw new IllegalArgumentException(
      s"persist.system.write needs ${params(i)._1}: the shard's name and the table or view holding the rows.")))
    val options = WriteOptions(timeCol = string(2), diffCol = string(3),
      maxRowsPerPart = if (input.isNullAt(4)) None else Some(input.getLong(4)),
      jsonColumns = columns(6).getOrElse(Nil), keepStats = columns(7).getOrElse(Nil),
      indexColumns = columns(8).getOrElse(Nil), mergeSchema = !input.isNullAt(9) && input.getBoolean(9))
    val batch = ShardWrites.write(store, SparkSession.active.table(source), shard, options, columns(5), columns(10))
    (schema, Array(InternalRow(UTF8String.fromString(shard), UTF8String.fromString(batch.id), batch.lower,
      batch.upper, batch.partCount, batch.rowCount)))
  }
}
