package sparkpersist.iceberg

import scala.util.control.NonFatal

import org.apache.spark.sql.classic.SparkSession

import sparkpersist.PersistConf
import sparkpersist.shard.{BatchMeta, ShardHandle}
import sparkpersist.write.CommitHook

/**
 * Brings the Iceberg metadata of a shard whose table property [[IcebergProperty]] is on up to date
 * after each commit (the state's compare-and-set) of a batch: the snapshot of the new version, and of
 * any version an earlier failure left unwritten. By default it only asks the driver's background writer
 * ([[IcebergSyncQueue]]) and returns; with `spark.sparkpersist.iceberg.async` off, it writes them in the
 * active session before the statement returns. It runs after the commit, so it never fails or undoes
 * it. Registered in `META-INF/services/sparkpersist.write.CommitHook`.
 */
final class IcebergCommitHook extends CommitHook {
  override def afterCommit(shard: ShardHandle, batch: BatchMeta): Unit =
    SparkSession.getActiveSession.foreach(IcebergCommitHook.afterChange(_, shard))
}

object IcebergCommitHook {
  private val log = org.slf4j.LoggerFactory.getLogger(getClass)

  /**
   * After a commit of `shard` (a batch, or a change of its state that committed no batch, as a
   * compaction's): its sync, in the background or now as `spark`'s `spark.sparkpersist.iceberg.async`
   * says, if the property is on. A failure is logged, never raised: the change is committed.
   */
  def afterChange(spark: SparkSession, shard: ShardHandle): Unit =
    try if (IcebergProperty.enabled(shard.state.schema)) {
      if (PersistConf.IcebergAsync.get(spark.sessionState.conf)) IcebergSyncQueue.request(spark, shard)
      else IcebergSync.sync(spark, shard)
    } catch {
      case NonFatal(e) => log.warn(s"Shard '${shard.name}': its Iceberg metadata was not brought up to date " +
        "(the next commit or CALL persist.system.iceberg catches up)", e)
    }
}
