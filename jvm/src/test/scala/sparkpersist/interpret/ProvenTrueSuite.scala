package sparkpersist.interpret

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/**
 * The three-way part decision ([[PartFilter.decide]]) is sound both ways, in both ANSI modes,
 * over the soundness property's random predicates, zones and parts and over predicates the
 * vectorized decision compiles ([[DecisionCheck]]). `InterpretBench truth N` runs it larger.
 */
class ProvenTrueSuite extends AnyFunSuite with ScalaCheckPropertyChecks with LocalSpark {

  private val cases = Gen.frequency(1 -> SoundnessGen.sample, 1 -> VectorFilterSuite.sample)

  for (ansi <- Seq(true, false)) {
    test(s"a part proven true holds no row that is false, null or an error; one ruled out none that is true or an error (ansi=$ansi)") {
      val check = new DecisionCheck(spark)
      val total = new DecisionCheck.Tally
      forAll(cases, minSuccessful(200)) { c =>
        val tally = check.check(c, ansi)
        assert(tally.violations.isEmpty, tally.violations.take(3).mkString("\n"))
        total.add(tally)
      }
      info(total.toString)
      // Not vacuous: both proofs happen on a good share of the parts.
      assert(total.provenTrue > total.parts / 20 && total.ruledOut > total.parts / 20, total.toString)
    }
  }

  test("the decision of a part by its bounds: ruled out, proven true, or undecided") {
    import org.apache.spark.sql.catalyst.expressions._
    import org.apache.spark.sql.types._
    import sparkpersist.schema.ShardSchema
    import sparkpersist.stats.{ColumnStats, PartStats}
    val ts = AttributeReference("ts", LongType)()
    val schema = ShardSchema.fromStruct(StructType(Seq(StructField("ts", LongType))))
    val ids = AttributeMap(Seq(ts -> schema.columns.head.id))
    def part(nulls: Long, lo: Long, hi: Long) = PartStats(10, 1, Map(schema.columns.head.id -> ColumnStats(nulls, Some(lo), Some(hi))))
    for (vectorized <- Seq(true, false)) {
      def decide(condition: Expression, stats: PartStats) =
        PartFilter.compile(condition, ids, schema, MzNowSpec.at(0L), vectorized = vectorized).decide(stats)
      val recent = GreaterThanOrEqual(ts, Literal(100L))
      assert(decide(recent, part(0, 100, 200)) == PartDecision.ProvenTrue)
      assert(decide(recent, part(0, 0, 99)) == PartDecision.RuledOut)
      assert(decide(recent, part(0, 50, 150)) == PartDecision.Undecided)
      // A null makes the filter null on that row: not proven true.
      assert(decide(recent, part(1, 100, 200)) == PartDecision.Undecided)
      assert(decide(IsNotNull(ts), part(0, 100, 200)) == PartDecision.ProvenTrue)
      // Each operand is judged alone (the interpreter is not relational): true on every row, unproven.
      assert(decide(Or(recent, IsNull(ts)), part(1, 100, 200)) == PartDecision.Undecided)
      assert(decide(Not(recent), part(0, 0, 99)) == PartDecision.ProvenTrue)
      assert(decide(And(recent, LessThan(ts, Literal(300L))), part(0, 100, 200)) == PartDecision.ProvenTrue)
      // An ANSI overflow may raise: never proven true.
      assert(decide(GreaterThanOrEqual(Multiply(ts, Literal(Long.MaxValue), EvalMode.ANSI), Literal(0L)),
        part(0, 100, 200)) == PartDecision.Undecided)
    }
  }
}
