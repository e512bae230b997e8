package sparkpersist.plan

import scala.util.Random

import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.interpret.{Analyzed, LocalSpark, MzNowSpec, PartDecision}
import sparkpersist.shard.ShardFixtures

class PartDecisionsSuite extends AnyFunSuite with LocalSpark {

  test("deciding parts in parallel decides exactly as one by one does, and as each part alone") {
    val schema = ShardFixtures.eventSchema
    val parts = (0 until 200).flatMap { b =>
      ShardFixtures.eventBatch(s"b$b", b * 1000L, b * 1000L + 1000, 100, new Random(b)).runs.flatMap(_.parts)
    }.zipWithIndex.map { case (p, i) => if (i % 997 == 0) p.copy(stats = None) else p }
    val analyzed = new Analyzed(spark, schema.columns.map(c => AttributeReference(c.name, c.dataType, c.nullable)()))
    Seq(
      "id >= 50000000 AND id <= 90000000 OR score > 1.5",
      "amount > 900 AND day = DATE '2022-01-08' OR user_name < 'user_0100'",
      "CAST(user_name AS INT) > 3 AND id < 1000000").foreach { sql =>
      val condition = analyzed(sql, ansi = true)
      def decided(parallelFrom: Long) = PartPruning.select(condition, schema, 1000L, PushdownMode.On).decideAmong(parts, parallelFrom)
      val sequential = decided(parallelFrom = 0)
      val parallel = decided(parallelFrom = 1000)
      assert(parallel.ruledOut === sequential.ruledOut, sql)
      assert(parallel.provenTrue === sequential.provenTrue, sql)
      // Each part as the interpreter decides it alone (a part without stats is undecided).
      val alone = PartPruning.decide(condition, schema, MzNowSpec.at(1000L * 1000))
      assert(parts.indices.map(sequential(_)) === parts.map(_.stats.fold[PartDecision](PartDecision.Undecided)(alone.decision)), sql)
      val ruledOut = parts.indices.filter(sequential.ruledOut.get)
      assert(ruledOut.forall(parts(_).stats.isDefined), sql)
      if (!sql.startsWith("CAST")) assert(ruledOut.nonEmpty && ruledOut.size < parts.size, sql)
    }
  }

  test("every decision is counted once, where it is made") {
    val before = PartDecisions.made
    val decided = PartDecisions.decide(12345, i => if (i % 2 == 0) PartDecision.RuledOut else PartDecision.ProvenTrue, 1000)
    assert(PartDecisions.made - before === 12345)
    assert(decided.ruledOut.cardinality === 6173 && decided.provenTrue.cardinality === 6172)
    assert(decided(0) === PartDecision.RuledOut && decided(1) === PartDecision.ProvenTrue)
    assert(PartDecisions.undecided(3)(2) === PartDecision.Undecided)
  }
}
