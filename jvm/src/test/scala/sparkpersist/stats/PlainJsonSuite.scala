package sparkpersist.stats

import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/**
 * The JSON text walk without a parser ([[PlainJson]]) against the walk through Jackson, document
 * by document: the same answer (one valid document or not), the same stats at every place, the
 * same proof that `parse_json` accepts it. Documents are drawn from the plain subset and around
 * it (decimals, escapes, non-ASCII text, leading zeros, long integers, deep nesting, whitespace
 * that JSON does not allow), then mutated byte by byte into near misses.
 */
class PlainJsonSuite extends AnyFunSuite {

  /** A string's content: valid JSON only when `clean` (escapes and text outside the subset included). */
  private def word(r: scala.util.Random, clean: Boolean): String = {
    val valid = Seq("a", "", "k", "with space", "{not: [an, object]}", "x,y", "caf\u00e9", "esc\\\"aped", "\\u0041", "del\u007f")
    if (clean || r.nextInt(4) > 0) valid(r.nextInt(valid.size)) else Seq("tab\there", "ctl\u0001", "bad\\q").apply(r.nextInt(3))
  }

  private def space(r: scala.util.Random, clean: Boolean): String = {
    val valid = Seq("", "", " ", "\n", "\t ", "\r\n")
    if (clean || r.nextInt(8) > 0) valid(r.nextInt(valid.size)) else Seq("\u000b", "\f").apply(r.nextInt(2))
  }

  /** A random document; unless `clean`, with some invalid atoms (leading zeros, bad literals and whitespace). */
  private def document(r: scala.util.Random, clean: Boolean, depth: Int = 0): String = {
    val doc = r.nextInt(if (depth < 4) 12 else 8) match {
      case 0 => (r.nextInt(2001) - 1000).toString
      case 1 =>
        val valid = Seq("0", "-0", "999999999999999999", "-999999999999999999", "1000000000000000000", "9223372036854775808",
          "1.5", "1e3", "-1E-2", "123456789012345678901234567890")
        if (clean || r.nextInt(3) > 0) valid(r.nextInt(valid.size)) else Seq("01", "-", "+1", "1.", ".5").apply(r.nextInt(5))
      case 2 | 3 => "\"" + word(r, clean) + "\""
      case 4 => if (clean || r.nextInt(3) > 0) Seq("true", "false", "null").apply(r.nextInt(3)) else Seq("nul", "True", "truex").apply(r.nextInt(3))
      case 5 => r.nextLong().toString
      case 6 => "\"" + "long " * r.nextInt(300) + "\""
      case 7 if r.nextInt(20) == 0 => "[" * 70 + "1" + "]" * 70 // past the subset's depth
      case 7 => "\"" + r.nextInt(5) + "\""
      case 8 | 9 =>
        val keys = Seq.fill(r.nextInt(if (r.nextInt(5) == 0) 30 else 5))(if (r.nextInt(6) == 0) word(r, clean) else s"k${r.nextInt(12)}")
        keys.map(k => s"${space(r, clean)}\"$k\"${space(r, clean)}:${space(r, clean)}${document(r, clean, depth + 1)}${space(r, clean)}")
          .mkString("{", ",", "}")
      case _ => Seq.fill(r.nextInt(5))(space(r, clean) + document(r, clean, depth + 1) + space(r, clean)).mkString("[", ",", "]")
    }
    space(r, clean) + doc + space(r, clean)
  }

  private val Edits = "{}[],:\"\\ -0123456789.eEtrufalsn\t\u0000\u00e9"

  private def mutate(r: scala.util.Random, doc: String): String = {
    if (doc.isEmpty) return doc
    val at = r.nextInt(doc.length)
    r.nextInt(4) match {
      case 0 => doc.substring(0, at) + doc.substring(at + 1)
      case 1 => doc.substring(0, at) + Edits.charAt(r.nextInt(Edits.length)) + doc.substring(at)
      case 2 => doc.substring(0, at)
      case _ => doc + doc.substring(at)
    }
  }

  test("documents read without a parser give what the Jackson walk gives, place by place") {
    val r = new scala.util.Random(37)
    var plainlyRead = 0
    var valid = 0
    var comparedAfterPlain = 0
    val rounds = 3000
    for (round <- 0 until rounds) {
      // Two rounds in three: valid documents of a few shapes, else near misses.
      val clean = r.nextInt(3) > 0
      val shapes = Seq.fill(1 + r.nextInt(3))(document(r, clean))
      val docs = Seq.fill(1 + r.nextInt(6))(shapes(r.nextInt(shapes.size))).map(d => if (clean) d else mutate(r, d))
      val limits = JsonLimits(maxDepth = 1 + r.nextInt(5), maxKeys = 3 + r.nextInt(40), maxMembers = r.nextInt(3) * 8)
      val (fast, slow) = (JsonPlace.root(limits, Some("UTC")), JsonPlace.root(limits, Some("UTC")))
      val (fastWalk, slowWalk) = (new JsonTextCollector.Walk, new JsonTextCollector.Walk)
      var together = true
      var plainHere = 0
      docs.foreach { d =>
        val json = UTF8String.fromString(d)
        if (new PlainJson().accepts(json)) plainHere += 1
        val expected = JsonTextCollector.add(json, slow, slowWalk, plain = false)
        assert(JsonTextCollector.add(json, fast, fastWalk) === expected, s"round $round: valid? '$d'")
        if (expected) {
          valid += 1
          assert(fastWalk.proves === slowWalk.proves, s"round $round: proves? '$d'")
        }
        together &&= expected
      }
      if (together) {
        assert(fast.result(8) === slow.result(8), s"round $round: ${docs.mkString(" | ")}")
        if (plainHere > 1) comparedAfterPlain += 1
      }
      plainlyRead += plainHere
    }
    info(s"$plainlyRead documents of the plain subset, $valid valid, $comparedAfterPlain rounds of several plain documents compared")
    assert(plainlyRead > rounds / 2 && valid > plainlyRead, s"$plainlyRead plain, $valid valid")
  }

  test("key names met at the same position in the documents before are reused only when the same") {
    val docs = Seq("{\"k1\": 1, \"k2\": {\"a\": 2}}", "{\"k2\": 1, \"k1\": {\"a\": 2}}", "{\"k1\": 1, \"k22\": {\"b\": 2}}",
      "{\"k1\": 3, \"k2\": {\"a\": 4}}")
    val (fast, slow) = (JsonPlace.root(JsonLimits.Default), JsonPlace.root(JsonLimits.Default))
    val (fastWalk, slowWalk) = (new JsonTextCollector.Walk, new JsonTextCollector.Walk)
    docs.foreach { d =>
      assert(JsonTextCollector.add(UTF8String.fromString(d), fast, fastWalk))
      assert(JsonTextCollector.add(UTF8String.fromString(d), slow, slowWalk, plain = false))
    }
    assert(fast.result(8) === slow.result(8))
  }

  test("the subset's edges: what it reads, and what it leaves to Jackson") {
    val reader = new PlainJson
    def plain(s: String) = reader.accepts(UTF8String.fromString(s))
    Seq("0", "-0", " 12 ", "999999999999999999", "\"\"", "[]", "{}", "[ ]", "{ }", "{\"a\":[1,{\"b\":null}]}",
      "[true,false,null]", "\"{[,:]}\"", "[" * 64 + "]" * 64).foreach(s => assert(plain(s), s))
    Seq("", " ", "01", "-", "1.0", "1e2", "1000000000000000000", "\"\\n\"", "\"\u00e9\"", "\"\u0001\"", "[1,]", "{\"a\":1,}",
      "[1 2]", "{\"a\" 1}", "{1:2}", "1 2", "truex", "nul", "[" * 65 + "]" * 65, "\u000b1", "[1]]", "[[1]",
      "{\"" + "k" * 1025 + "\":1}").foreach(s => assert(!plain(s), s))
    val wide = (0 to JsonTextCollector.MaxProvenKeys).map(k => s"\"k$k\":1").mkString("{", ",", "}")
    assert(!plain(wide) && plain(wide.replace(",\"k0\":1", "").replace("\"k0\":1,", "")))
  }
}
