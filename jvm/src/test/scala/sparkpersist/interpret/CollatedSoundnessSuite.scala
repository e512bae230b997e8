package sparkpersist.interpret

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckDrivenPropertyChecks

import sparkpersist.schema.ShardSchema
import sparkpersist.stats.{CollatedStrings, MembershipCollector, PartStats, StatsCollector}

/**
 * Collated strings: a part of random strings (case, accents, `ß`/`ss`, dotted and dotless i,
 * trailing spaces, long values past the bound cap) gets the stats the writer collects (bounds in the collation's
 * order, a membership filter of sort keys); a random comparison, `<=>` or `IN` with constants
 * may skip the part only if Spark's own evaluation of it is true on no row, and may prove it true
 * only if it is true on every row.
 */
class CollatedSoundnessSuite extends AnyFunSuite with ScalaCheckDrivenPropertyChecks {

  private val collations = Seq("UTF8_LCASE", "UNICODE", "UNICODE_CI", "UNICODE_CI_AI", "de_CI_AI", "tr_CI",
    "UTF8_BINARY_RTRIM", "UTF8_LCASE_RTRIM", "UNICODE_CI_RTRIM")
  private val pieces = Seq("a", "A", "á", "Á", "b", "B", "ß", "ss", "SS", "i", "I", "İ", "ı", "z", "Z", "é", "e", " ", "0")
  private val BoundChars = 4

  private val text: Gen[String] = Gen.choose(0, 6).flatMap(n => Gen.listOfN(n, Gen.oneOf(pieces))).map(_.mkString)

  /** A column of one collation, its part (values, nulls as None) and a condition on it. */
  private val cases = for {
    collation <- Gen.oneOf(collations)
    values <- Gen.choose(1, 12).flatMap(n => Gen.listOfN(n, Gen.frequency(9 -> text.map(Some(_)), 1 -> Gen.const(None))))
    constants <- Gen.choose(1, 3).flatMap(n => Gen.listOfN(n, Gen.frequency(3 -> Gen.oneOf(values).map(_.getOrElse("x")),
      3 -> text, 1 -> Gen.const(null))))
    shape <- Gen.choose(0, 7)
  } yield (collation, values, constants, shape)

  test("a comparison of a collated column with constants skips a part only if it is true on no row") {
    var skipped, proven = 0
    forAll(cases, minSuccessful(4000)) { case (collation, values, constants, shape) =>
      val dt = StringType(collation)
      assert(CollatedStrings.supports(dt))
      val schema = ShardSchema.fromStruct(StructType(Seq(StructField("s", dt))))
      val a = AttributeReference("s", dt)()
      val id = schema.columns.head.id
      val collector = StatsCollector.forType(dt, BoundChars)
      val members = new MembershipCollector(dt)
      val rows = values.map(v => InternalRow(v.map(UTF8String.fromString).orNull))
      rows.foreach { r => collector.update(r, 0); members.update(r, 0) }
      val stats = PartStats(rows.size, 100, Map(id -> collector.result().copy(members = members.result())))
      def lit(v: String) = Literal.create(v, dt)
      val c = lit(constants.head)
      val condition: Expression = shape match {
        case 0 => EqualTo(a, c)
        case 1 => EqualTo(c, a)
        case 2 => LessThan(a, c)
        case 3 => GreaterThanOrEqual(a, c)
        case 4 => LessThanOrEqual(c, a)
        case 5 => EqualNullSafe(a, c)
        case 6 => In(a, constants.map(lit))
        case _ => InSet(a, constants.map(v => if (v == null) null else UTF8String.fromString(v)).toSet)
      }
      val bound = BindReferences.bindReference(condition, Seq(a))
      val answers = rows.map(r => bound.eval(r))
      val filter = PartFilter.compile(condition, AttributeMap(Seq(a -> id)), schema, MzNowSpec.at(0L), vectorized = false)
      if (!filter.keep(stats)) {
        skipped += 1
        assert(!answers.contains(true), s"$collation: skipped a part where $condition is true on $values")
      }
      if (filter.decide(stats) == PartDecision.ProvenTrue) {
        proven += 1
        assert(answers.forall(_ == true), s"$collation: proved $condition true on $values, answers $answers")
      }
    }
    info(s"skipped $skipped parts, proved $proven true")
    assert(skipped > 500 && proven > 50, "the cases must exercise pruning and proofs")
  }

  test("equal strings share a sort key and differ from unequal ones, as the collation compares them") {
    forAll(Gen.oneOf(collations), text, text, minSuccessful(3000)) { (collation, x, y) =>
      val id = StringType(collation).collationId
      val (u, v) = (UTF8String.fromString(x), UTF8String.fromString(y))
      val equal = org.apache.spark.sql.catalyst.util.CollationFactory.fetchCollation(id).equalsFunction.apply(u, v)
      assert(java.util.Arrays.equals(CollatedStrings.sortKey(u, id), CollatedStrings.sortKey(v, id)) === equal.booleanValue,
        s"$collation: '$x' vs '$y'")
    }
  }
}
