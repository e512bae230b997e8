package sparkpersist.iceberg

import java.util.Collections
import java.util.concurrent.TimeUnit

import org.apache.hadoop.util.ShutdownHookManager
import org.apache.spark.SparkContext
import org.apache.spark.scheduler.{SparkListener, SparkListenerApplicationEnd}

import sparkpersist.PersistConf

/**
 * Nothing the background writer ([[IcebergSyncQueue]]) was asked for is dropped when the application
 * ends: its stop waits for every pending sync, at most `spark.sparkpersist.iceberg.async.waitMs` (read
 * from the application's configuration).
 *
 *  - `SparkContext.stop()` (`spark.stop()`) posts the application's end to its listeners and waits for
 *    them before it returns: a listener waits there. The context is stopping by then, so a sync that needs
 *    a Spark job (the position delete file of a `DELETE`, `UPDATE` or `MERGE`) fails and is left, logged,
 *    to the next commit or `CALL persist.system.iceberg`; the snapshots of appends and compactions are
 *    written.
 *  - The JVM's exit without a stop: a Hadoop shutdown hook of a higher priority than Spark's own (which
 *    stops the context) waits first, while the context still runs jobs.
 */
private[iceberg] object IcebergSyncOnStop {
  private val log = org.slf4j.LoggerFactory.getLogger(getClass)

  /** Runs before Spark's shutdown hooks (Hadoop's `FileSystem.SHUTDOWN_HOOK_PRIORITY` + 30). */
  private val HookPriority = org.apache.hadoop.fs.FileSystem.SHUTDOWN_HOOK_PRIORITY + 40

  @volatile private var waitMs = PersistConf.IcebergAsyncWaitMs.default

  private val contexts = Collections.newSetFromMap(new java.util.WeakHashMap[SparkContext, java.lang.Boolean])

  private lazy val exitHook: Unit =
    ShutdownHookManager.get().addShutdownHook(() => awaitPending("the JVM exits"), HookPriority,
      waitMs + 1000, TimeUnit.MILLISECONDS)

  /** Makes the stop of `sc`, and the JVM's exit, wait for the pending syncs (once per context). */
  def register(sc: SparkContext): Unit = {
    val first = contexts.synchronized(contexts.add(sc))
    if (first) {
      waitMs = PersistConf.IcebergAsyncWaitMs.get(sc.getConf.getAll.toMap)
      exitHook
      sc.addSparkListener(new SparkListener {
        override def onApplicationEnd(end: SparkListenerApplicationEnd): Unit = awaitPending("the application ends")
      })
    }
  }

  private def awaitPending(when: String): Unit =
    if (!IcebergSyncQueue.awaitAll(waitMs)) {
      log.warn(s"Iceberg metadata still being written in the background when $when after " +
        s"${PersistConf.IcebergAsyncWaitMs.key} = $waitMs ms; the next commit or CALL persist.system.iceberg catches up")
    }
}
