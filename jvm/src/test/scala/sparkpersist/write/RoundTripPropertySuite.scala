package sparkpersist.write

import org.apache.spark.SparkConf
import org.scalatest.{Args, Status}

import sparkpersist.PersistSparkSession
import sparkpersist.roundtrip.{Coverage, RoundTripRun}

/**
 * The write boundary is exact (issue 20): random schemas of every type the writer accepts, with
 * random names, written and read back under random session settings, must read back value for
 * value, with stats that match their part files and filters that return the same rows with
 * pushdown on, soft and off; and types no part can store are refused before anything is written.
 * See [[sparkpersist.roundtrip.RoundTripCheck]]. `RoundTripSoak` runs the same on 1,000 schemas.
 *
 * The seed is fixed; `-Dsparkpersist.roundtrip.seed=N` runs another one. A failure names the seed
 * and the shard index of every mismatch.
 */
class RoundTripPropertySuite extends PersistSparkSession {

  private var settings = Map.empty[String, String]
  private def setting(key: String, default: Long): Long = settings.get(key).orElse(sys.props.get(key)).fold(default)(_.toLong)
  private lazy val Schemas = setting("sparkpersist.roundtrip.schemas", 50).toInt
  private lazy val seed = setting("sparkpersist.roundtrip.seed", 20)

  /** Takes `-Dsparkpersist.roundtrip.seed=N` (and `.schemas=N`) from the ScalaTest arguments too: `testOnly ... -- -D...`. */
  override def run(testName: Option[String], args: Args): Status = {
    settings = args.configMap.collect { case (k, v: String) if k.startsWith("sparkpersist.roundtrip.") => k -> v }
    super.run(testName, args)
  }

  /**
   * Every shard has a schema of its own, so compiling code for its queries costs far more than
   * evaluating its few rows: Spark's interpreted evaluation keeps the suite fast (`RoundTripSoak`
   * runs with code generation, as users do).
   */
  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.codegen.factoryMode", "NO_CODEGEN")
    .set("spark.sql.codegen.wholeStage", "false")

  test("random schemas round-trip exactly, with exact stats, in every pushdown mode") {
    val cpu = java.lang.management.ManagementFactory.getOperatingSystemMXBean
      .asInstanceOf[com.sun.management.OperatingSystemMXBean]
    val (cpuStart, start) = (cpu.getProcessCpuTime, System.nanoTime())
    val outcome = RoundTripRun(spark, seed, Schemas, filtersPerShard = 3, refusals = 0, maxRows = 200)
    info(f"seed $seed: ${outcome.summary} (${(System.nanoTime() - start) / 1e9}%.0f s, " +
      f"${(cpu.getProcessCpuTime - cpuStart) / 1e9}%.0f s of CPU)")
    assert(outcome.mismatches.isEmpty,
      s"seed $seed: ${outcome.summary}\n${outcome.mismatches.take(60).mkString("\n")}")
    val missing = Coverage.Expected -- outcome.features
    assert(missing.isEmpty || Schemas < 50, s"seed $seed: no shard exercised $missing")
    assert(outcome.partsPruned > 0 || Schemas < 50, s"seed $seed: no filter pruned a part")
  }

  test("types no part can store exactly (TIME, STRUCT<>) are refused, naming where, before anything is written") {
    val outcome = RoundTripRun(spark, seed, schemas = 0, filtersPerShard = 0, refusals = 12)
    info(s"seed $seed: ${outcome.summary}")
    assert(outcome.mismatches.isEmpty, s"seed $seed: ${outcome.summary}\n${outcome.mismatches.mkString("\n")}")
    assert(Set("refused TIME", "refused STRUCT<>").subsetOf(outcome.features), outcome.features)
  }
}
