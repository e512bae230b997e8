package sparkpersist.bench

import java.io.File
import java.lang.management.ManagementFactory
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.commons.io.FileUtils
import org.apache.hadoop.conf.Configuration

import sparkpersist.bench.Bench.{arg, median}
import sparkpersist.interpret.{MzNowSpec, PartDecision}
import sparkpersist.plan.{PartDecisions, PartPruning}
import sparkpersist.shard.{ShardFixtures, ShardStore}

/**
 * The first decision of [[OpenShardBench.KeptFilter]] on a freshly opened columnar rollup (the
 * "1st score ms ∥" of [[PlanningBench]]) split in two: the same decision made again on the same
 * state, once the stats bytes are loaded, is the decision alone; the difference is the load. So
 * a profile of the first decision can be told apart from the decision's own cost, and a change
 * to the loading measured in a minute rather than in a whole PlanningBench run.
 *
 * `bench/runMain sparkpersist.bench.FirstDecisionBench [parts=1000000] [opens=10] [dir]`: with
 * `dir`, the shard is built there once and reused by later runs (the build of a million parts
 * takes a minute or two), else in a temporary directory deleted on exit.
 */
object FirstDecisionBench {
  private val PartsPerBatch = 100

  /** The time this JVM's collectors have spent so far (pauses and concurrent work, as each reports it). */
  private def gcMs(): Long =
    ManagementFactory.getGarbageCollectorMXBeans.asScala.iterator.map(_.getCollectionTime.max(0L)).sum

  def main(args: Array[String]): Unit = {
    val parts = arg(args, 0, 1000000)(_.toInt)
    val opens = arg(args, 1, 10)(_.toInt)
    val kept = args.lift(2).map(new File(_))
    val root = kept.getOrElse(Files.createTempDirectory("first-decision-bench").toFile)
    val conf = new Configuration()
    val name = s"events_$parts"
    val batches = math.max(1, parts / PartsPerBatch)
    try {
      if (!new File(root, name).exists()) {
        val ms = OpenShardBench.build(root, name, batches, conf)
        println(s"built $parts parts in $ms ms")
      }
      val schema = ShardFixtures.eventSchema
      val rows = (1 to opens).map { _ =>
        val state = new ShardStore(root.toURI.toString, conf).open(name).state
        val stateParts = state.parts.toIndexedSeq
        // The kept parts, the wall time, this process's CPU time (less inflated by the machine's load
        // than wall time) and the time the JVM spent collecting garbage meanwhile.
        def decide(parallel: Boolean): (Int, Double, Double, Long) = {
          val decision = PartPruning.decide(OpenShardBench.KeptFilter, schema, MzNowSpec.at(0L), vectorized = true)
          System.gc()
          val gcStart = gcMs()
          val (kept, ms, cpuMs) = Bench.timedWithCpuMs {
            decision.prepare(stateParts)
            stateParts.size - PartDecisions.decide(stateParts.size,
              i => stateParts(i).stats.fold[PartDecision](PartDecision.Undecided)(decision.decision),
              parallelFrom = if (parallel) 1 else 0).ruledOut.cardinality
          }
          (kept, ms, cpuMs, gcMs() - gcStart)
        }
        val (keptFirst, firstMs, firstCpuMs, firstGcMs) = decide(parallel = true)
        val (keptAgain, againMs, againCpuMs, againGcMs) = decide(parallel = true)
        val (_, oneByOneMs, _, _) = decide(parallel = false)
        assert(keptFirst == keptAgain, s"the second decision keeps $keptAgain parts, the first $keptFirst")
        println(f"first ∥ $firstMs%.1f ms (cpu $firstCpuMs%.0f ms, gc $firstGcMs ms), again ∥ $againMs%.1f ms " +
          f"(cpu $againCpuMs%.0f ms, gc $againGcMs ms), load ≈ ${firstMs - againMs}%.1f ms " +
          f"(cpu ${firstCpuMs - againCpuMs}%.0f ms); again one by one $oneByOneMs%.1f ms; kept $keptFirst")
        (firstMs, againMs, oneByOneMs, firstCpuMs, againCpuMs)
      }
      def med(f: ((Double, Double, Double, Double, Double)) => Double) = median(rows.map(f))
      println(f"median of $opens opens of $parts parts: first ∥ ${med(_._1)}%.1f ms (cpu ${med(_._4)}%.0f ms), " +
        f"again ∥ ${med(_._2)}%.1f ms (cpu ${med(_._5)}%.0f ms), again one by one ${med(_._3)}%.1f ms " +
        s"(${Runtime.getRuntime.availableProcessors} cores; the machine's load inflates wall times)")
    } finally if (kept.isEmpty) FileUtils.deleteDirectory(root)
  }
}
