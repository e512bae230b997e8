package sparkpersist.plan

import scala.util.Random

import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.interpret.{Analyzed, LocalSpark}
import sparkpersist.shard.ShardFixtures

class PartDecisionsSuite extends AnyFunSuite with LocalSpark {

  test("deciding parts in parallel rules out exactly the parts one by one does, in the same order") {
    val schema = ShardFixtures.eventSchema
    val parts = (0 until 200).flatMap { b =>
      ShardFixtures.eventBatch(s"b$b", b * 1000L, b * 1000L + 1000, 100, new Random(b)).runs.flatMap(_.parts)
    }.zipWithIndex.map { case (p, i) => if (i % 997 == 0) p.copy(stats = None) else p }
    val analyzed = new Analyzed(spark, schema.columns.map(c => AttributeReference(c.name, c.dataType, c.nullable)()))
    Seq(
      "id >= 50000000 AND id <= 90000000 OR score > 1.5",
      "amount > 900 AND day = DATE '2022-01-08' OR user_name < 'user_0100'",
      "CAST(user_name AS INT) > 3 AND id < 1000000").foreach { sql =>
      val admits = PartPruning.select(analyzed(sql, ansi = true), schema, 1000L, PushdownMode.On).admits _
      val sequential = PartDecisions.ruledOut(parts, admits, parallelFrom = 0)
      val parallel = PartDecisions.ruledOut(parts, admits, parallelFrom = 1000)
      assert(parallel.size === sequential.size, sql)
      assert(parallel.zip(sequential).forall { case (a, b) => a eq b }, sql)
      assert(sequential === parts.filterNot(admits), sql)
      assert(sequential.forall(_.stats.isDefined), sql)
      if (!sql.startsWith("CAST")) assert(sequential.nonEmpty && sequential.size < parts.size, sql)
    }
    // Below the threshold, the same decision is made one by one.
    val admitsNone = (_: sparkpersist.shard.PartMeta) => false
    assert(PartDecisions.ruledOut(parts.take(10), admitsNone, parallelFrom = 1000) === parts.take(10))
  }
}
