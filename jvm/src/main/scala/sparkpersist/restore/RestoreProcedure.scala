package sparkpersist.restore

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.{ProcedureParameter, UnboundProcedure}
import org.apache.spark.sql.types.{LongType, StringType, StructType, TimestampType}

import sparkpersist.catalog.{RowsProcedure, SystemProcedures}
import sparkpersist.errors.PersistErrors
import sparkpersist.shard.ShardStore

/** Offers [[RestoreProcedure]] in the persist catalog's `system` namespace. */
final class RestoreProcedures extends SystemProcedures {
  override def procedures(store: ShardStore): Seq[UnboundProcedure] = Seq(new RestoreProcedure(store))
}

/**
 * `CALL persist.system.restore(shard => 'events', version => 12)` or
 * `(shard => 'events', timestamp => TIMESTAMP '2026-11-20 00:00:00')`: the shard made equal to its
 * snapshot at that version or time ([[Restore]]), returning one row ([[RestoreResult]]). What
 * `RESTORE TABLE persist.events TO VERSION AS OF 12` runs.
 */
final class RestoreProcedure(store: ShardStore) extends RowsProcedure("restore",
    "Makes a persist shard equal to its snapshot at an earlier version or time, with one batch retracting " +
      "and inserting the rows that differ (history kept), and returns what it committed.") {

  override def parameters(): Array[ProcedureParameter] = Array(
    ProcedureParameter.in("shard", StringType).build(),
    ProcedureParameter.in("version", LongType).defaultValue("CAST(NULL AS BIGINT)").build(),
    ProcedureParameter.in("timestamp", TimestampType).defaultValue("CAST(NULL AS TIMESTAMP)").build())

  override def result(input: InternalRow): (StructType, Array[InternalRow]) = {
    val shard = if (input.isNullAt(0)) "" else input.getUTF8String(0).toString
    val target = (input.isNullAt(1), input.isNullAt(2)) match {
      case (false, true) => RestoreTarget.Version(input.getLong(1))
      case (true, false) => RestoreTarget.Timestamp(input.getLong(2))
      case _ => throw PersistErrors.invalidOption(s"persist.system.restore of shard '$shard'", "it needs exactly one " +
        "of version (a state version, as persist.<shard>.history lists them) and timestamp (an update time).")
    }
    if (shard.isEmpty) throw PersistErrors.invalidOption("persist.system.restore", "it needs shard: the shard's name.")
    (RestoreResult.Schema, Array(Restore(SparkSession.active, store.open(shard), target).row))
  }
}
