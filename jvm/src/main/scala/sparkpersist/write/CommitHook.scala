package sparkpersist.write

import java.util.ServiceLoader

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.slf4j.LoggerFactory

import sparkpersist.shard.{BatchMeta, ShardHandle}

/**
 * Work that a package above `write` runs on the driver right after a batch is committed (the
 * automatic compaction of `sparkpersist.compact`), found with `java.util.ServiceLoader`
 * (`META-INF/services/sparkpersist.write.CommitHook`), so that writing does not depend on it.
 * The batch is committed before a hook runs: a hook's failure is logged, never reported as a
 * failed write.
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
