package sparkpersist.iceberg

import org.apache.spark.sql.classic.SparkSession

import sparkpersist.shard.{BatchMeta, ShardHandle}
import sparkpersist.write.CommitHook

/**
 * Writes the Iceberg metadata of a shard whose table property [[IcebergProperty]] is on, on the
 * driver in the active session, right after each commit (the state's compare-and-set) of a batch: the snapshot of the new
 * version, and of any version an earlier failure left unwritten. It runs after the commit, so it never
 * fails or undoes it: [[CommitHook]] logs a failure, and the next commit or `CALL persist.system.iceberg`
 * catches up. Registered in `META-INF/services/sparkpersist.write.CommitHook`.
 */
final class IcebergCommitHook extends CommitHook {
  override def afterCommit(shard: ShardHandle, batch: BatchMeta): Unit =
    SparkSession.getActiveSession.filter(_ => IcebergProperty.enabled(shard.state.schema))
      .foreach(IcebergSync.sync(_, shard))
}
