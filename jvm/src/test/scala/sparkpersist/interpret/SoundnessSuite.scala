package sparkpersist.interpret

import org.apache.spark.sql.SparkSession
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/**
 * Soundness of the interpreter against Spark's own evaluator, over random predicates and parts
 * (see [[SoundnessCheck]]), in both ANSI modes. `InterpretBench soundness N` runs it larger.
 */
class SoundnessSuite extends AnyFunSuite with ScalaCheckPropertyChecks with BeforeAndAfterAll {

  private var spark: SparkSession = _

  override def beforeAll(): Unit = {
    super.beforeAll()
    spark = SparkSession.builder().master("local[1]").appName("SoundnessSuite")
      .config("spark.ui.enabled", "false").getOrCreate()
  }

  override def afterAll(): Unit = {
    try spark.stop() finally super.afterAll()
  }

  for (ansi <- Seq(true, false)) {
    test(s"every concrete result is admitted by the abstract spec (ansi=$ansi)") {
      val check = new SoundnessCheck(spark)
      var analyzed, pruned, checked, total = 0
      forAll(SoundnessGen.sample, minSuccessful(200)) { c =>
        val outcome = check.check(c, ansi)
        total += 1
        if (outcome.analyzed) analyzed += 1
        if (outcome.pruned) pruned += 1
        checked += outcome.checked
        assert(outcome.violations.isEmpty, outcome.violations.mkString("\n"))
      }
      info(s"$total cases, $analyzed analyzed, $checked (subexpression, row) checks, $pruned parts pruned")
      // Not vacuous: most generated predicates are valid SQL, and some parts are pruned.
      assert(analyzed > total * 3 / 4)
      assert(pruned > 0)
    }
  }
}
