package sparkpersist.roundtrip

import org.apache.spark.sql.SparkSession

/**
 * A run of the round-trip property: shards `0 until schemas` of `seed` ([[GeneratedShard]]), each
 * checked by [[RoundTripCheck]], then `refusals` schemas holding a type no part can store
 * ([[RefusalCheck]]). Shared by `RoundTripPropertySuite` and the `RoundTripSoak` bench.
 */
object RoundTripRun {

  /** The seed of the test suite, unless `-Dsparkpersist.roundtrip.seed` overrides it. */
  def seed(default: Long): Long = sys.props.get("sparkpersist.roundtrip.seed").map(_.toLong).getOrElse(default)

  def apply(spark: SparkSession, seed: Long, schemas: Int, filtersPerShard: Int, refusals: Int, maxRows: Int = 200,
      progress: (Int, RoundTripOutcome) => Unit = (_, _) => ()): RoundTripOutcome = {
    val check = new RoundTripCheck(spark, filtersPerShard)
    val written = (0 until schemas).foldLeft(RoundTripOutcome()) { (total, i) =>
      val sum = total + check.run(GeneratedShard(seed, i, maxRows))
      progress(i, sum)
      sum
    }
    val refusal = new RefusalCheck(spark)
    (0 until refusals).foldLeft(written)((total, i) => total + refusal.run(seed, i))
  }
}
