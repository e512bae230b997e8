package sparkpersist.api

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.{ProcedureParameter, UnboundProcedure}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.catalog.{RowsProcedure, SystemProcedures}
import sparkpersist.errors.PersistErrors
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

  private val required = Seq("shard", "source")

  private val schema = StructType(Seq(
    StructField("shard", StringType, nullable = false), StructField("batch_id", StringType, nullable = false),
    StructField("lower", LongType, nullable = false), StructField("upper", LongType, nullable = false),
    StructField("parts", IntegerType, nullable = false), StructField("rows", LongType, nullable = false)))

  override def parameters(): Array[ProcedureParameter] = params.map { case (n, t) =>
    if (required.contains(n)) ProcedureParameter.in(n, t).build()
    else ProcedureParameter.in(n, t).defaultValue(s"CAST(NULL AS ${t.sql})").build()
  }.toArray

  override def result(input: InternalRow): (StructType, Array[InternalRow]) = {
    val at = params.map(_._1).zipWithIndex.toMap
    def given(name: String): Boolean = !input.isNullAt(at(name))
    def string(name: String): Option[String] = Option.when(given(name))(input.getUTF8String(at(name)).toString)
    def columns(name: String): Option[Seq[String]] = Option.when(given(name)) {
      input.getArray(at(name)).toSeq[UTF8String](StringType).map(column => Option(column).map(_.toString).getOrElse(
        throw PersistErrors.invalidOption("persist.system.write", s"$name holds a null; name columns.")))
    }
    val Seq(shard, source) = required.map(name => string(name).getOrElse(throw PersistErrors.invalidOption(
      "persist.system.write", s"it needs $name: the shard's name and the table or view holding the rows.")))
    val options = WriteOptions(timeCol = string("time_col"), diffCol = string("diff_col"),
      maxRowsPerPart = Option.when(given("max_rows_per_part"))(input.getLong(at("max_rows_per_part"))),
      jsonColumns = columns("json_columns").getOrElse(Nil), keepStats = columns("keep_stats").getOrElse(Nil),
      indexColumns = columns("index_columns").getOrElse(Nil),
      mergeSchema = given("merge_schema") && input.getBoolean(at("merge_schema")))
    val batch = ShardWrites.write(store, SparkSession.active.table(source), shard, options,
      columns("order_by"), columns("cluster_by"))
    (schema, Array(InternalRow(UTF8String.fromString(shard), UTF8String.fromString(batch.id), batch.lower,
      batch.upper, batch.partCount, batch.rowCount)))
  }
}
