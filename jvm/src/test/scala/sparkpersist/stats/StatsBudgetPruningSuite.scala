package sparkpersist.stats

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.expressions.{AttributeMap, AttributeReference}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.test.SharedSparkSession
import org.apache.spark.sql.types.{DataType, StructField, StructType}
import org.scalacheck.Gen
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import sparkpersist.interpret.{Analyzed, MzNowSpec, NestedSoundnessGen, PartFilter, SoundnessGen}
import sparkpersist.schema.ShardSchema

/**
 * Trimmed stats never prune more: for random predicates (the soundness suites', over every
 * supported type, nested columns and `mz_now()`), random stats (long and multi-byte strings,
 * nested stats included) and random budgets, a part kept with its original stats is kept with
 * its trimmed ones.
 */
class StatsBudgetPruningSuite extends SharedSparkSession with ScalaCheckPropertyChecks {

  test("a part kept by its original stats is kept by its trimmed stats") {
    check(SoundnessGen.columns, SoundnessGen.predicate, minimum = (600, 20, 10))
  }

  test("the same with nested stats: struct fields, array elements, map keys and values") {
    check(NestedSoundnessGen.columns, Gen.choose(1, 3).flatMap(NestedSoundnessGen.bool), minimum = (600, 20, 10))
  }

  /**
   * Checks random predicates over `columns` on random parts and budgets; `minimum` gives how many
   * parts must be decided, pruned with their original stats, and pruned with their trimmed stats.
   */
  private def check(columns: Seq[(String, DataType)], predicate: Gen[String], minimum: (Int, Int, Int)): Unit = {
    val attrs = columns.map { case (n, t) => AttributeReference(n, t)() }
    val schema = ShardSchema.fromStruct(StructType(attrs.map(a => StructField(a.name, a.dataType))))
    val columnIds = AttributeMap(attrs.zip(schema.columns.map(_.id)))
    val analyzed = new Analyzed(spark, attrs)
    var (decided, pruned, prunedTrimmed, trimmed) = (0, 0, 0, 0)
    val parts = Gen.listOfN(8, Gen.zip(StatsGen.part(schema, depth = 1), Gen.choose(40L, 700L),
      Gen.someOf(schema.columns.map(_.id))))
    forAll(predicate, Gen.oneOf(false, true), Gen.choose(0L, 2000000000000000L), parts,
      minSuccessful(150)) { (sql, ansi, asOf, cases) =>
      val condition = try Some(analyzed(sql, ansi)) catch { case NonFatal(_) => None }
      condition.foreach(c => SQLConf.withExistingConf(spark.sessionState.conf) {
        val filter = PartFilter.compile(analyzed.withMzNow(c), columnIds, schema, MzNowSpec.at(asOf))
        cases.foreach { case (stats, budgetBytes, keep) =>
          val small = new StatsBudget(schema, keep.toSet, budgetBytes)(stats)
          val (before, after) = (filter.keep(stats), filter.keep(small))
          assert(!before || after, s"$sql pruned the trimmed stats $small but not the original $stats")
          decided += 1
          if (!before) pruned += 1
          if (!after) prunedTrimmed += 1
          if (small ne stats) trimmed += 1
        }
      })
    }
    // Not vacuous: parts were trimmed, and pruned both before and after trimming.
    assert(decided > minimum._1 && trimmed > decided / 2 && pruned > minimum._2 && prunedTrimmed > minimum._3,
      (decided, trimmed, pruned, prunedTrimmed))
  }
}
