package sparkpersist.compact

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.connector.catalog.procedures.{ProcedureParameter, UnboundProcedure}
import org.apache.spark.sql.types.{BooleanType, DataType, IntegerType, LongType, StringType, StructType}

import sparkpersist.catalog.{RowsProcedure, SystemProcedures}
import sparkpersist.errors.PersistErrors
import sparkpersist.shard.ShardStore

/**
 * The SQL form of the lifecycle, as Spark's DSv2 procedures of the persist catalog:
 *
 * {{{
 *   CALL persist.system.compact('events');
 *   CALL persist.system.compact(shard => 'events', retention_ms => 2592000000);
 *   CALL persist.system.compact(shard => 'events', cluster => true);  -- lay every window out again, the open one too
 *   CALL persist.system.gc('events', keep_versions => 5);
 *   CALL persist.system.drop_batch('events', '<batch id, or the path of one of its parts>');
 * }}}
 *
 * Arguments not given come from the session's configuration, as in [[Lifecycle]]. Each call
 * returns one row: the [[CompactionResult]] or [[GcResult]] fields. The catalog offers them
 * through the [[SystemProcedures]] seam (`META-INF/services`): they live above it.
 */
final class LifecycleProcedures extends SystemProcedures {
  override def procedures(store: ShardStore): Seq[UnboundProcedure] = Seq(
    new LifecycleProcedure("compact",
      "Compacts a persist shard: moves since by the retention, merges adjacent batches size-tiered " +
        "within time windows, consolidates at since, clusters sealed windows of a table with CLUSTER BY " +
        "(cluster => true: all of them again, and the open window as it is now); says per window what it did and why.",
      Seq("shard" -> StringType, "retention_ms" -> LongType, "fan_in" -> IntegerType, "target_bytes" -> LongType,
        "window_ms" -> LongType, "gc" -> BooleanType, "cluster" -> BooleanType),
      args => Lifecycle.compact(SparkSession.active, store, args.string(0), CompactOptions(
        retentionMs = args.long(1), fanIn = args.int(2), targetBytes = args.long(3), windowMs = args.long(4),
        gc = args.bool(5), recluster = args.bool(6).getOrElse(false)))),
    new LifecycleProcedure("gc",
      "Deletes the parts no live state version of a persist shard refers to, orphans past the grace, " +
        "and state versions no longer needed.",
      Seq("shard" -> StringType, "keep_versions" -> IntegerType, "grace_ms" -> LongType),
      args => Lifecycle.gc(SparkSession.active, store, args.string(0),
        GcOptions(keepVersions = args.int(1), graceMs = args.long(2)))),
    new LifecycleProcedure("drop_batch",
      "Removes one batch of a persist shard (named by its id or by the path of one of its parts) at every " +
        "time: the way out when its parts cannot be read.",
      Seq("shard" -> StringType, "batch" -> StringType),
      args => {
        if (args.isNull(1)) throw PersistErrors.invalidOption("drop_batch", "it needs the batch: its id or a part's path.")
        Lifecycle.dropBatch(store, args.string(0), args.string(1))
      }))
}

/** The positional arguments of a call; every argument but the first (the shard) may be null. */
private final class Arguments(row: InternalRow) {
  def string(i: Int): String = row.getUTF8String(i).toString
  def isNull(i: Int): Boolean = row.isNullAt(i)
  def long(i: Int): Option[Long] = if (row.isNullAt(i)) None else Some(row.getLong(i))
  def int(i: Int): Option[Int] = if (row.isNullAt(i)) None else Some(row.getInt(i))
  def bool(i: Int): Option[Boolean] = if (row.isNullAt(i)) None else Some(row.getBoolean(i))
}

/** A procedure taking a shard name and optional settings, returning one result row. */
private final class LifecycleProcedure(
    procedureName: String,
    procedureDescription: String,
    params: Seq[(String, DataType)],
    run: Arguments => LifecycleResult) extends RowsProcedure(procedureName, procedureDescription) {

  override def parameters(): Array[ProcedureParameter] = params.zipWithIndex.map {
    case ((n, t), 0) => ProcedureParameter.in(n, t).build()
    case ((n, t), _) => ProcedureParameter.in(n, t).defaultValue(s"CAST(NULL AS ${t.sql})").build()
  }.toArray

  override def result(input: InternalRow): (StructType, Array[InternalRow]) = {
    val result = run(new Arguments(input))
    (result.schema, Array(InternalRow.fromSeq(result.fields.map(f => CatalystTypeConverters.convertToCatalyst(f.value)))))
  }
}
