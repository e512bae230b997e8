package sparkpersist.compact

import java.io.{BufferedReader, File, InputStreamReader}
import java.lang.management.ManagementFactory

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import org.apache.spark.sql.QueryTest

import sparkpersist.PersistSparkSession
import sparkpersist.schema.ShardSchema

/**
 * Compaction and appends in two OS processes on one shard: a second JVM ([[AppendLoop]]) appends
 * batches while this one compacts in a loop. Every append the other process acknowledged must be
 * in the final snapshot exactly once, and nothing else.
 */
class ConcurrentCompactionSuite extends QueryTest with PersistSparkSession {
  import testImplicits._

  private val Appends = 12

  /** A JVM like this one (classpath, the options Spark needs on Java 17) running `main`. */
  private def javaProcess(main: String, args: String*): ProcessBuilder = {
    val options = ManagementFactory.getRuntimeMXBean.getInputArguments.asScala
      .filter(a => a.startsWith("--add-opens") || a.startsWith("-XX:+IgnoreUnrecognizedVMOptions") || a.startsWith("-D"))
    val java = new File(System.getProperty("java.home"), "bin/java").getPath
    new ProcessBuilder((Seq(java, "-Xmx768m", "-cp", System.getProperty("java.class.path")) ++ options ++
      Seq(main) ++ args).asJava)
  }

  test("an append acknowledged by another process while compactions commit is in the snapshot exactly once") {
    store.create("shared", ShardSchema.fromStruct(new org.apache.spark.sql.types.StructType().add("k", "long")
      .add("v", "string"), orderBy = Seq("k")))
    val stderr = File.createTempFile("append-loop", ".log")
    val child = javaProcess(AppendLoop.getClass.getName.stripSuffix("$"), root.toURI.toString, "shared", Appends.toString)
      .redirectError(stderr).start()
    val lines = ArrayBuffer.empty[String]
    val reader = new Thread(() => {
      val in = new BufferedReader(new InputStreamReader(child.getInputStream))
      Iterator.continually(in.readLine()).takeWhile(_ != null).foreach(l => lines.synchronized(lines += l))
    })
    reader.start()
    // Tier boundaries at 1.5 * 2^k bytes: the appends' parts (about 1 KB) share a tier.
    val options = CompactOptions(fanIn = Some(2), targetBytes = Some(3L << 29), windowMs = Some(1000L * 86400000L))
    var committed = 0
    var overlapping = 0
    val rounds = ArrayBuffer.empty[String]
    // Compact after every new acknowledgement, while the other process goes on appending.
    var seen = 0
    while (child.isAlive) {
      val acked = lines.synchronized(lines.count(_.startsWith("ACK")))
      if (acked == seen) Thread.sleep(20)
      else {
        seen = acked
        val result = Lifecycle.compact(spark, "shared", options)
        committed += result.groupsMerged
        if (acked < Appends && result.groupsMerged > 0) overlapping += 1
        rounds += s"${result.groupsMerged} (appends acknowledged $acked..${lines.synchronized(lines.count(_.startsWith("ACK")))})"
      }
    }
    reader.join()
    assert(child.exitValue() === 0, scala.io.Source.fromFile(stderr).getLines().toSeq.takeRight(30).mkString("\n"))
    committed += Lifecycle.compact(spark, "shared", options).groupsMerged
    val acked = lines.filter(_.startsWith("ACK ")).map(_.stripPrefix("ACK ").toInt)
    assert(acked.sorted === (0 until Appends))
    val expected = for (i <- 0 until Appends; j <- 0 until 5) yield (i * 10L + j, s"b$i-$j")
    assert(sql("SELECT k, v FROM persist.shared").as[(Long, String)].collect().toSeq.sorted === expected)
    val state = store.open("shared").state
    assert(state.batches.map(_.appends).sum === Appends)
    assert(committed > 0 && state.batches.size < Appends)
    info(s"$committed groups merged, $overlapping compactions committed while appends were running; " +
      s"${lines.count(_.startsWith("FAIL"))} appends retried; groups merged per compaction: ${rounds.mkString(", ")}")
  }
}
