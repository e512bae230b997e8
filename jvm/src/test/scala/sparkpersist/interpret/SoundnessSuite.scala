package sparkpersist.interpret

import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/**
 * Soundness of the interpreter against Spark's own evaluator, over random predicates and parts
 * (see [[SoundnessCheck]]), in both ANSI modes. `InterpretBench soundness N` runs it larger.
 */
class SoundnessSuite extends AnyFunSuite with ScalaCheckPropertyChecks with LocalSpark {

  for (ansi <- Seq(true, false)) {
    test(s"every concrete result is admitted by the abstract spec (ansi=$ansi)") {
      val check = new SoundnessCheck(spark)
      var analyzed, pruned, checked, total = 0
      val byClass = scala.collection.mutable.Map.empty[String, (Int, Int)]
      forAll(SoundnessGen.sample, minSuccessful(150)) { c =>
        val outcome = check.check(c, ansi)
        total += 1
        if (outcome.analyzed) analyzed += 1
        pruned += outcome.pruned
        checked += outcome.checked
        outcome.withinByClass.foreach { case (k, (n, w)) =>
          val (n0, w0) = byClass.getOrElse(k, (0, 0)); byClass(k) = (n0 + n, w0 + w) }
        assert(outcome.violations.isEmpty, outcome.violations.take(3).mkString("\n"))
      }
      info(byClass.toSeq.sortBy(_._1).map { case (k, (n, w)) => s"$k $w/$n" }.mkString(", "))
      info(s"$total cases, $analyzed analyzed, $checked (subexpression, row) checks, $pruned of ${total * SoundnessGen.PartsPerCase} parts pruned")
      // Not vacuous: most generated predicates are valid SQL, and some parts are pruned.
      assert(analyzed > total * 3 / 4)
      assert(pruned > 0)
    }
  }
}
