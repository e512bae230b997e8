package sparkpersist.reliability

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.types.StructType

import sparkpersist.ChildJvm
import sparkpersist.compact.{AppendLoop, CompactOptions, Lifecycle}
import sparkpersist.schema.ShardSchema

/**
 * `processes` writer JVMs ([[AppendLoop]]) appending `appends` batches each to one shard, with
 * (`compact`) a compaction loop in this process beside them. Every acknowledged batch must be in
 * the final snapshot exactly once and nothing else, `upper` must never move back (sampled
 * throughout), and failed attempts must leave no part file behind.
 */
object ConcurrentWritersRun {

  def run(spark: SparkSession, at: AuditedStore, name: String, processes: Int, appends: Int, compact: Boolean): Tally = {
    val caseName = s"concurrent writers: $processes x $appends${if (compact) " + compaction" else ""}"
    val store = at.store(spark)
    store.create(name, ShardSchema.fromStruct(new StructType().add("k", "long").add("v", "string"), Seq("k")))
    val children = (0 until processes).map(p =>
      ChildJvm.start(AppendLoop, Seq(at.root, name, appends.toString, s"p$p-")))
    val options = CompactOptions(fanIn = Some(2), targetBytes = Some(3L << 29), windowMs = Some(1000L * 86400000L))
    var uppers = Vector(0L)
    var compactions = 0
    while (children.exists(_.isAlive)) {
      uppers :+= store.open(name).state.upper
      if (compact) compactions += Lifecycle.compact(spark, store, name, options).groupsMerged
      else Thread.sleep(50)
    }
    val exits = children.map(_.await())
    uppers :+= store.open(name).state.upper
    def fail(why: String, lost: Boolean = false) = Tally.failed(caseName, s"$name: $why", lost)
    val acked = children.zipWithIndex.flatMap { case (c, p) => c.numbered("ACK").map(p -> _) }
    val expected = acked.flatMap { case (p, i) => ShardAudit.batch(s"p$p-", i) }.sorted
    val rows = at.rows(spark, name).sorted
    val handle = store.open(name)
    val leftovers = ShardAudit.unreferencedParts(handle)
    if (exits.exists(_ != 0)) fail(s"writers failed: ${children.map(_.errorTail).mkString("\n")}")
    else if (rows != expected) {
      val (missing, extra) = (expected.diff(rows), rows.diff(expected))
      fail(s"${missing.size} acknowledged rows missing (${missing.take(5)}), ${extra.size} extra (${extra.take(5)})",
        lost = missing.nonEmpty || extra.nonEmpty)
    }
    else if (acked.size != processes * appends) fail(s"only ${acked.size} appends acknowledged")
    else if (uppers.zip(uppers.tail).exists { case (a, b) => b < a }) fail(s"upper moved back: $uppers", lost = true)
    else if (!compact && leftovers.nonEmpty) fail(s"failed attempts left parts: $leftovers")
    else Tally.ok(caseName).copy(examples = Vector(s"${acked.size} appends acknowledged, " +
      s"${children.map(_.numbered("FAIL").size).sum} attempts failed and retried, $compactions groups merged"))
  }
}
