package sparkpersist.cluster

import java.util.concurrent.{CountDownLatch, TimeUnit}

import org.apache.spark.TaskContext
import org.apache.spark.api.plugin.{DriverPlugin, ExecutorPlugin, SparkPlugin}

/**
 * A Spark plugin (`spark.plugins`) that, once armed, holds the tasks of a compaction's merge job
 * (described `sparkpersist compact ...`) at their start until the test releases them: whatever
 * the test commits meanwhile lands between the compaction's plan and its commit.
 */
final class HeldCompaction extends SparkPlugin {
  override def driverPlugin(): DriverPlugin = null

  override def executorPlugin(): ExecutorPlugin = new ExecutorPlugin {
    override def onTaskStart(): Unit = HeldCompaction.hold()
  }
}

object HeldCompaction {
  /** (a merge task started, the test released it), while armed. */
  @volatile private var gate: Option[(CountDownLatch, CountDownLatch)] = None

  /** Holds the next compaction's tasks: runs `whileHeld` once one started, then releases them. */
  def during[T](compaction: => T)(whileHeld: => Unit): T = {
    val started = new CountDownLatch(1)
    val released = new CountDownLatch(1)
    gate = Some((started, released))
    val pool = java.util.concurrent.Executors.newSingleThreadExecutor()
    try {
      val result = pool.submit(new java.util.concurrent.Callable[T] { def call(): T = compaction })
      assert(started.await(120, TimeUnit.SECONDS), "the compaction's merge job never started")
      try whileHeld finally {
        gate = None
        released.countDown()
      }
      result.get(300, TimeUnit.SECONDS)
    } finally {
      gate = None
      released.countDown()
      pool.shutdown()
    }
  }

  private def hold(): Unit = gate.foreach { case (started, released) =>
    val description = Option(TaskContext.get()).flatMap(c => Option(c.getLocalProperty("spark.job.description")))
    if (description.exists(_.startsWith("sparkpersist compact"))) {
      started.countDown()
      released.await(300, TimeUnit.SECONDS)
    }
  }
}
