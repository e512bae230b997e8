package sparkpersist.stats

import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckDrivenPropertyChecks

/**
 * The JSON text walk proves that Spark's `parse_json` accepts a value ([[JsonTextCollector.Walk.proves]])
 * only where Spark's own parser does: random documents with duplicate keys (also in subtrees the
 * stats' limits skip), numbers past a long and past a decimal, exponents, escapes, non-ASCII text,
 * deep nesting, many keys and trailing text.
 */
class VariantParseProofSuite extends AnyFunSuite with ScalaCheckDrivenPropertyChecks {

  private val key: Gen[String] = Gen.oneOf("a", "b", "c", "é", "日本", "k\\n", "")
  private val scalar: Gen[String] = Gen.oneOf(
    Gen.oneOf("0", "-0", "12", "9223372036854775807", "9223372036854775808", "123456789012345678901234567890123456789012",
      "1.5", "-0.25", "1e3", "1E400", "-1e-400", "0.1234567890123456789012345678901234567890", "true", "false", "null"),
    Gen.oneOf("\"\"", "\"abc\"", "\"é日本\"", "\"tab\\t\"", "\"q\\\"\"", "\"\\u00e9\"", "\"\\ud83d\\ude00\""))

  private def value(depth: Int): Gen[String] =
    if (depth <= 0) scalar
    else Gen.frequency(4 -> scalar, 2 -> obj(depth - 1), 1 -> arr(depth - 1))

  /** An object, one time in six with a key repeated. */
  private def obj(depth: Int): Gen[String] = for {
    keys <- Gen.choose(0, 4).flatMap(Gen.listOfN(_, key)).map(_.distinct)
    repeat <- Gen.frequency(5 -> Gen.const(Nil), 1 -> Gen.oneOf(keys.headOption.toList, Nil))
    values <- Gen.listOfN(keys.size + repeat.size, value(depth))
  } yield (keys ++ repeat).zip(values).map { case (k, v) => s""""$k": $v""" }.mkString("{", ", ", "}")

  private def arr(depth: Int): Gen[String] =
    Gen.choose(0, 3).flatMap(Gen.listOfN(_, value(depth))).map(_.mkString("[", ", ", "]"))

  /** Many keys (past the proof's limit), deep nesting, trailing text, or a plain document. */
  private val document: Gen[String] = Gen.frequency(
    12 -> value(4),
    1 -> Gen.choose(90, 110).map(n => (0 until n).map(i => s""""k$i": $i""").mkString("{", ",", "}")),
    1 -> Gen.choose(1, 40).map(n => "[" * n + "1" + "]" * n),
    1 -> value(2).map(_ + " junk"),
    1 -> value(2).map(" " + _))

  test("a value the walk proves to parse is one Spark's parse_json accepts") {
    var proven, checked = 0
    // Small limits, so that subtrees past them are skipped unchecked (and must not be proven).
    Seq(JsonLimits.Default, JsonLimits(maxDepth = 1, maxKeys = 3)).foreach { limits =>
      forAll(document, minSuccessful(3000)) { doc =>
        val json = UTF8String.fromString(doc)
        val walk = new JsonTextCollector.Walk
        if (JsonTextCollector.add(json, JsonPlace.root(limits), walk)) {
          checked += 1
          if (walk.proves) {
            proven += 1
            assert(VariantParse.parses(json), s"proven to parse, but parse_json refuses: $doc")
          }
        }
      }
    }
    info(s"$proven of $checked strict documents proven")
    assert(proven > 1000 && proven < checked, "the proof must apply often, and not always")
  }

  test("what the proof leaves to Spark's parser") {
    def proves(doc: String, limits: JsonLimits = JsonLimits.Default): Boolean = {
      val json = UTF8String.fromString(doc)
      val walk = new JsonTextCollector.Walk
      JsonTextCollector.add(json, JsonPlace.root(limits), walk) && walk.proves
    }
    assert(proves("""{"a": {"b": [1, "x", null, 1e400]}}"""))
    assert(!proves("""{"a": {"b": 1, "b": 2}}"""), "a duplicate key is no strict document")
    assert(!proves("""{"a": {"b": {"c": 1, "c": 2}}}""", JsonLimits(maxDepth = 1, maxKeys = 10)),
      "a subtree past the depth limit is skipped, its keys unchecked")
    assert(!proves((0 until 101).map(i => s""""k$i": 1""").mkString("{", ",", "}")), "more keys than the proof allows")
    assert(!proves("""{"a": "\u00e9"}""".replace("\u00e9", "\\u00e9")), "escapes take the character reader")
    assert(!proves("\u00e9"), "not ASCII at the start")
  }
}
