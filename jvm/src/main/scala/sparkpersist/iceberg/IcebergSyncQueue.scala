package sparkpersist.iceberg

import java.util.concurrent.{LinkedBlockingQueue, ThreadFactory, ThreadPoolExecutor, TimeUnit}
import java.util.concurrent.atomic.AtomicInteger

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.spark.sql.classic.SparkSession

import sparkpersist.PersistConf
import sparkpersist.shard.ShardHandle

/**
 * The driver's background writer of Iceberg metadata (`spark.sparkpersist.iceberg.async`): a commit
 * only [[request]]s a sync of its shard and returns; a small pool of daemon threads runs
 * [[IcebergSync.sync]], one run at a time per shard. A sync catches up every version missing, so the
 * requests made while one runs coalesce into one more run (with the newest request's session and
 * handle). A failed sync is logged, never raised: the commit is decided, and the next sync catches up.
 *
 * Waiting: [[awaitShard]] (the procedure, garbage collection) and [[awaitAll]] (the application's
 * stop, [[IcebergSyncOnStop]]) return once no sync of the shard (of any shard) is pending or running,
 * or when their deadline passes.
 */
object IcebergSyncQueue {
  private val log = org.slf4j.LoggerFactory.getLogger(getClass)

  /**
   * The session and handle a run syncs with, and the oldest version committed since the request (the
   * first a new metadata shows: each version committed with the property gets its snapshot, as when
   * each commit writes its own).
   */
  private final case class Request(spark: SparkSession, shard: ShardHandle, version: Long)

  /** Guards [[owned]]; notified whenever a shard's worker lets it go. */
  private val lock = new Object

  /**
   * The shards a worker owns (queued or running), by qualified directory, each with the request still
   * to run after the current one (None: none came since it started).
   */
  private val owned = mutable.Map.empty[String, Option[Request]]

  private val threads = new AtomicInteger
  private lazy val pool = {
    // Threads that do not inherit the committing thread's locals (its Spark job group, SQL execution id).
    val factory: ThreadFactory = r => {
      val t = new Thread(null, r, s"sparkpersist-iceberg-sync-${threads.incrementAndGet()}", 0, false)
      t.setDaemon(true)
      t
    }
    val p = new ThreadPoolExecutor(2, 2, 60, TimeUnit.SECONDS, new LinkedBlockingQueue[Runnable], factory)
    p.allowCoreThreadTimeOut(true)
    p
  }

  /** Test seam: runs on the worker before each sync (a test holds the worker there). */
  @volatile private[iceberg] var beforeSync: ShardHandle => Unit = _ => ()

  /** Asks for a sync of `shard` in the background, with `spark` (its Spark job, if any); returns at once. */
  def request(spark: SparkSession, shard: ShardHandle): Unit = {
    IcebergSyncOnStop.register(spark.sparkContext)
    val key = keyOf(shard)
    val asked = Request(spark, shard, shard.state.seqNo)
    val start = lock.synchronized {
      val idle = !owned.contains(key)
      owned(key) = if (idle) None else Some(owned(key).fold(asked)(r => asked.copy(version = r.version min asked.version)))
      idle
    }
    if (start) pool.execute(() => drain(key, asked))
  }

  /**
   * Syncs `shard` now, in `spark`, once its pending background syncs are done (at most
   * `spark.sparkpersist.iceberg.async.waitMs`; then regardless: syncs racing each other each write only
   * the versions still missing), so the status is current: `CALL persist.system.iceberg`.
   */
  def syncNow(spark: SparkSession, shard: ShardHandle): IcebergStatus = {
    awaitShard(shard, PersistConf.IcebergAsyncWaitMs.get(spark.sessionState.conf))
    IcebergSync.sync(spark, shard)
  }

  /** Waits until no sync of `shard` is pending or running, at most `timeoutMs`; whether none is. */
  def awaitShard(shard: ShardHandle, timeoutMs: Long): Boolean = awaitUntil(timeoutMs)(!owned.contains(keyOf(shard)))

  /** Waits until no sync of any shard is pending or running, at most `timeoutMs`; whether none is. */
  def awaitAll(timeoutMs: Long): Boolean = awaitUntil(timeoutMs)(owned.isEmpty)

  private def awaitUntil(timeoutMs: Long)(done: => Boolean): Boolean = lock.synchronized {
    val deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs)
    var left = timeoutMs
    while (!done && left > 0) {
      lock.wait(left)
      left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())
    }
    done
  }

  private def keyOf(shard: ShardHandle): String = shard.fs.makeQualified(shard.dir).toString

  /** Runs `first`, then each request that came meanwhile, until none did; then lets the shard go. */
  private def drain(key: String, first: Request): Unit = {
    var next = Option(first)
    try while (next.isDefined) {
      run(next.get)
      next = lock.synchronized {
        val after = owned(key)
        if (after.isDefined) owned(key) = None else release(key)
        after
      }
    } finally if (next.isDefined) lock.synchronized(release(key)) // a fatal error: the next request starts anew
  }

  /** Called holding [[lock]]. */
  private def release(key: String): Unit = {
    owned.remove(key)
    lock.notifyAll()
  }

  private def run(r: Request): Unit =
    try {
      beforeSync(r.shard)
      SparkSession.setActiveSession(r.spark)
      r.spark.sparkContext.setJobDescription(s"Iceberg metadata of shard '${r.shard.name}'")
      IcebergSync.sync(r.spark, r.shard, Some(r.version))
    } catch {
      case NonFatal(e) => log.warn(s"Shard '${r.shard.name}': its Iceberg metadata was not brought up to date in the " +
        "background (the next commit or CALL persist.system.iceberg catches up)", e)
    }
}
