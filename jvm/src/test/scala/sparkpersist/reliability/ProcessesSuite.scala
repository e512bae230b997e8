package sparkpersist.reliability

import scala.concurrent.{Await, Future}
import scala.concurrent.ExecutionContext.Implicits.global
import scala.concurrent.duration.Duration

import org.apache.spark.sql.QueryTest

import sparkpersist.PersistSparkSession

/**
 * Writers as separate OS processes, at a size for `make test` (`ReliabilitySoak` runs 8 x 50
 * with compaction, and each crash 10 to 50 times): racing appenders, and a writer halted at each
 * step of a write or killed at a random time. The crashing writers run side by side, each on
 * its own shard, as a JVM with Spark takes most of each run.
 */
class ProcessesSuite extends QueryTest with PersistSparkSession {

  test("a writer halted at each step of a write, or killed at a random time, loses no acknowledged batch") {
    val runs = (CrashingWriter.Steps :+ "random").map(step => Future(CrashRun.run(spark, AuditedStore(root), s"crash_$step", step, seed = 1)))
    val tallies = runs.map(Await.result(_, Duration.Inf))
    tallies.foreach(t => assert(t.failures === 0, t.summary))
    info(tallies.flatMap(_.examples).mkString("; "))
  }

  test("two processes appending to one shard: every acknowledged batch exactly once, upper monotone") {
    val t = ConcurrentWritersRun.run(spark, AuditedStore(root), "racing", processes = 2, appends = 4, compact = false)
    assert(t.failures === 0, t.summary)
    info(t.examples.mkString)
  }
}
