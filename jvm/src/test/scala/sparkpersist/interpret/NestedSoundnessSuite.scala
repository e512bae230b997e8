package sparkpersist.interpret

import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/**
 * Soundness of the interpreter over nested columns against Spark's own evaluator, with stats
 * from the writer's collectors (see [[NestedSoundnessCheck]]), in both ANSI modes.
 */
class NestedSoundnessSuite extends AnyFunSuite with ScalaCheckPropertyChecks with LocalSpark {

  for (ansi <- Seq(true, false)) {
    test(s"every concrete result, down to fields and elements, is admitted (ansi=$ansi)") {
      val check = new NestedSoundnessCheck(spark)
      var analyzed, pruned, checked, total = 0
      forAll(NestedSoundnessGen.sample, minSuccessful(120)) { c =>
        val outcome = check.check(c, ansi)
        total += 1
        if (outcome.analyzed) analyzed += 1
        pruned += outcome.pruned
        checked += outcome.checked
        assert(outcome.violations.isEmpty, outcome.violations.take(3).mkString("\n"))
      }
      info(s"$total cases, $analyzed analyzed, $checked (subexpression, row) checks, " +
        s"$pruned of ${total * SoundnessGen.PartsPerCase} parts pruned")
      // Not vacuous: most generated predicates are valid SQL, and some parts are pruned.
      assert(analyzed > total * 3 / 4)
      assert(pruned > 0)
    }
  }
}
