package sparkpersist.reliability

import scala.util.Random

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.types.StructType

import sparkpersist.ChildJvm
import sparkpersist.compact.{GarbageCollector, GcSettings}
import sparkpersist.schema.ShardSchema
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * One writer JVM ([[CrashingWriter]]) killed while appending to a fresh shard, at a named step of
 * its last batch or (`random`) by `kill -9` at a random time; then the shard is reopened here and
 * must be readable and hold every acknowledged batch exactly once, the batch being written whole
 * or not at all (named steps: not at all before the commit, whole after it); garbage collection
 * must delete every part the crash left that no state refers to, the snapshot unchanged; and the
 * shard must take the next append.
 */
object CrashRun {

  def run(spark: SparkSession, at: AuditedStore, name: String, step: String, seed: Long): Tally = {
    val caseName = s"crash: $step"
    val store = at.store(spark)
    store.create(name, ShardSchema.fromStruct(new StructType().add("k", "long").add("v", "string"), Seq("k")))
    val batches = if (step == "random") 8 else 2
    val child = ChildJvm.start(CrashingWriter, Seq(at.root, name, batches.toString, step))
    if (step == "random") {
      // After a random number of acknowledged batches, a random time into the next ones.
      val rnd = new Random(seed)
      val acks = rnd.nextInt(batches / 2)
      while (child.isAlive && child.numbered("ACK").size <= acks) Thread.sleep(10)
      Thread.sleep(rnd.nextInt(1500))
      child.kill()
    }
    val exit = child.await()
    val acked = child.numbered("ACK")
    def fail(why: String, lost: Boolean = false) = Tally.failed(caseName, s"$name (seed $seed, exit $exit): $why", lost)
    if (step != "random" && (exit != CrashingWriter.Halted || acked != (0 until batches - 1))) {
      return fail(s"the writer did not halt at $step after its first batches: acked $acked\n${child.errorTail}")
    }
    val byBatch = ShardAudit.byBatch(at.rows(spark, name))
    val missing = acked.filterNot(i => byBatch.get(s"b$i").exists(_.sorted == ShardAudit.batch("", i)))
    val partial = byBatch.filter { case (b, rows) => !(0 until batches).exists(i => b == s"b$i" && rows.sorted == ShardAudit.batch("", i)) }
    val halted = byBatch.contains(s"b${batches - 1}")
    val expectHalted = step == "rollup"
    val handle = store.open(name)
    val orphansBefore = ShardAudit.unreferencedParts(handle)
    val gc = GarbageCollector.collect(handle, GcSettings(keepVersions = 1, graceMs = 0), System.currentTimeMillis() + 86400000L)
    val orphansAfter = ShardAudit.unreferencedParts(handle)
    val afterGc = ShardAudit.byBatch(at.rows(spark, name))
    val upper = handle.state.upper
    import spark.implicits._
    val next = ShardWriter.write(ShardAudit.batch("", 99).toDF("k", "v").coalesce(1), handle, WriteOptions())
    if (missing.nonEmpty) fail(s"acknowledged batches missing or not whole: $missing", lost = true)
    else if (partial.nonEmpty) fail(s"partial or duplicated batches: $partial", lost = true)
    else if (step != "random" && halted != expectHalted) fail(s"the halted batch is ${if (halted) "" else "not "}visible")
    else if (orphansAfter.nonEmpty) fail(s"garbage collection left orphan parts $orphansAfter")
    else if (afterGc != byBatch) fail("garbage collection changed the snapshot", lost = true)
    else if (next.lower != upper || at.rows(spark, name).size != byBatch.values.map(_.size).sum + 5) {
      fail(s"the next append did not commit after the crash: $next")
    }
    else Tally.ok(caseName).copy(examples = Vector(s"$step: ${acked.size} acked, halted batch " +
      s"${if (halted) "committed" else "absent"}, ${orphansBefore.size} orphan parts (GC deleted ${gc.partsDeleted.size})"))
  }
}
