package sparkpersist.write

import java.util.ServiceLoader

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.slf4j.LoggerFactory

import sparkpersist.shard.{BatchMeta, ShardHandle}

/**
 * Work that a package above `write` runs on the driver right after a batch is committed (the
 * automatic compaction of `sparkpersist.compact.AutoCompaction`). The batch is committed before a
 * hook runs: a hook's failure is logged, never reported as a failed write.
 *
 * Why a seam (`java.util.ServiceLoader`, `META-INF/services/sparkpersist.write.CommitHook`) and not
 * a registration by the layer above: compaction writes its merged parts with `write`, so it sits
 * above it, and the commits it follows (SQL `INSERT`, DML, streaming writes, the Python writer) all
 * reach `write` through the catalog, which Spark instantiates by class name; a session configured
 * with the catalog alone (no `spark.sql.extensions`) loads no class above `catalog` before its first
 * commit, so nothing up there could register first. Hooks run on the driver only.
 */
trait CommitHook {
  def afterCommit(shard: ShardHandle, batch: BatchMeta): Unit
}

object CommitHook {
  private val log = LoggerFactory.getLogger(classOf[CommitHook])

  private lazy val hooks: Seq[CommitHook] =
    ServiceLoader.load(classOf[CommitHook], getClass.getClassLoader).asScala.toSeq

  /** Runs every hook for the batch just committed to `shard`. */
  def afterCommit(shard: ShardHandle, batch: BatchMeta): Unit =
    hooks.foreach { hook =>
      try hook.afterCommit(shard, batch)
      catch {
        case NonFatal(e) =>
          log.warn(s"Shard '${shard.name}': ${hook.getClass.getSimpleName} failed after batch '${batch.id}' " +
            "was committed (the batch is committed)", e)
      }
    }
}
