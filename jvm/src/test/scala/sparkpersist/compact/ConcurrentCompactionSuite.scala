package sparkpersist.compact

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.QueryTest

import sparkpersist.{ChildJvm, PersistSparkSession}
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.ShardState

/**
 * Compaction and appends in two OS processes on one shard: a second JVM ([[AppendLoop]]) appends
 * batches while this one compacts in a loop. Every append the other process acknowledged must be
 * in the final snapshot exactly once, and nothing else.
 */
class ConcurrentCompactionSuite extends QueryTest with PersistSparkSession {
  import testImplicits._

  private val Appends = 12

  test("an append acknowledged by another process while compactions commit is in the snapshot exactly once") {
    // Tier boundaries at 1.5 * 2^k bytes: the appends' parts (about 1 KB) share a tier.
    val state = compactBeside("shared", CompactOptions(fanIn = Some(2), targetBytes = Some(3L << 29),
      windowMs = Some(1000L * 86400000L)))
    assert(state.batches.size < Appends)
  }

  test("aged spans merge while another process appends: every acknowledged append exactly once") {
    // Windows of 100 ms: the appends land in many, which merge into spans of 200 ms, 400 ms, ... as they seal.
    val windowMs = 100L
    val state = compactBeside("aging", CompactOptions(fanIn = Some(2), targetBytes = Some(3L << 29), windowMs = Some(windowMs)))
    val spans = state.batches.map(CompactionPlanner.updateTimes)
    assert(spans.exists { case (lo, hi) => Math.floorDiv(lo, windowMs) != Math.floorDiv(hi, windowMs) },
      s"no batch spans more than one window: $spans")
  }

  /**
   * Compacts shard `name` with `options` after every append another process acknowledges, while it goes on
   * appending; checks that the snapshot holds every acknowledged append once, and returns the final state.
   */
  private def compactBeside(name: String, options: CompactOptions): ShardState = {
    store.create(name, ShardSchema.fromStruct(new org.apache.spark.sql.types.StructType().add("k", "long")
      .add("v", "string"), orderBy = Seq("k")))
    val child = ChildJvm.start(AppendLoop, Seq(root.toURI.toString, name, Appends.toString))
    var committed = 0
    var overlapping = 0
    val rounds = ArrayBuffer.empty[String]
    // Compact after every new acknowledgement, while the other process goes on appending.
    var seen = 0
    while (child.isAlive) {
      val acked = child.numbered("ACK").size
      if (acked == seen) Thread.sleep(20)
      else {
        seen = acked
        val result = Lifecycle.compact(spark, name, options)
        committed += result.groupsMerged
        if (acked < Appends && result.groupsMerged > 0) overlapping += 1
        rounds += s"${result.groupsMerged} (appends acknowledged $acked..${child.numbered("ACK").size})"
      }
    }
    assert(child.await() === 0, child.errorTail)
    committed += Lifecycle.compact(spark, name, options).groupsMerged
    val acked = child.numbered("ACK")
    assert(acked.sorted === (0 until Appends))
    val expected = for (i <- 0 until Appends; j <- 0 until 5) yield (i * 10L + j, s"b$i-$j")
    assert(sql(s"SELECT k, v FROM persist.$name").as[(Long, String)].collect().toSeq.sorted === expected)
    val state = store.open(name).state
    assert(state.batches.map(_.appends).sum === Appends)
    assert(committed > 0)
    info(s"$committed groups merged, $overlapping compactions committed while appends were running; " +
      s"${child.numbered("FAIL").size} appends retried; groups merged per compaction: ${rounds.mkString(", ")}")
    state
  }
}
