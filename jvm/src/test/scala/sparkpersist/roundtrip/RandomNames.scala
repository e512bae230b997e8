package sparkpersist.roundtrip

import scala.util.Random

import sparkpersist.schema.ReservedColumns

/**
 * Random column and struct field names that SQL needs quoting for: unicode (accents, CJK, emoji
 * outside the BMP, characters whose case folding is unusual), spaces, dots, backticks, commas,
 * braces, quotes, control characters, and empty struct field names.
 *
 * Names of one level (a shard's columns, or one struct's fields) are distinct ignoring case, as
 * the writer requires (`String.equalsIgnoreCase`, the comparison Spark's resolver makes); top-level
 * names are never empty and never the reserved `time` or `diff`.
 */
object RandomNames {

  private val fragments: IndexedSeq[String] = IndexedSeq(
    "a", "id", "Value", "x1", "ts", "n", "é", "naïve", "Straße", "日本語", "Ωmega", "\uD83D\uDE00", "\uD83E\uDDEA",
    "\u212A" /* Kelvin sign: lower-cases to k */, "İ", "ǅ", " ", "a b", ".", "a.b", "`", "a`b", ",", ";", "{}",
    "()", "=", "\t", "\n", "'", "\"", "\\", "$", "#", "-", "[0]", "*", "\u0000")

  /** `n` names of one level. */
  def level(rand: Random, n: Int, topLevel: Boolean): IndexedSeq[String] = {
    val names = scala.collection.mutable.ArrayBuffer.empty[String]
    while (names.size < n) {
      val candidate = name(rand, topLevel, names.size)
      if (!names.exists(_.equalsIgnoreCase(candidate))) names += candidate
    }
    names.toIndexedSeq
  }

  private def name(rand: Random, topLevel: Boolean, index: Int): String =
    if (!topLevel && rand.nextInt(12) == 0) ""
    else {
      val n = Iterator.fill(1 + rand.nextInt(3))(fragments(rand.nextInt(fragments.size))).mkString
      // A counter now and then keeps long schemas from running out of distinct names.
      val named = if (rand.nextInt(3) == 0) s"$n$index" else n
      if (topLevel && (named.equalsIgnoreCase(ReservedColumns.Time) || named.equalsIgnoreCase(ReservedColumns.Diff))) {
        named + "_"
      } else named
    }
}
