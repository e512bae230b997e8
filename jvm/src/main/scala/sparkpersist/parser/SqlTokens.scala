package sparkpersist.parser

import scala.collection.mutable.ArrayBuffer

/**
 * The tokens of a SQL text as far as the persist statements need them: words (letters, digits and
 * `_`), back-quoted identifiers (`` ` `` doubled inside), other characters one by one, each with where
 * it starts. Whitespace, `--` line comments and (nested) `/* */` comments separate tokens; a string
 * literal (`'...'` or `"..."`) is one token. Anything else is one character.
 */
private[parser] final case class SqlToken(text: String, start: Int, quoted: Boolean) {
  /** Whether this token is the keyword `word`, in any case (never a quoted identifier). */
  def is(word: String): Boolean = !quoted && text.equalsIgnoreCase(word)

  /** An identifier part: a word or a quoted identifier. */
  def isName: Boolean = quoted || text.headOption.exists(c => c.isLetterOrDigit || c == '_')
}

private[parser] object SqlTokens {

  /** The tokens of `sql`, or None when a quote or comment is not closed (Spark's parser then reports it). */
  def apply(sql: String): Option[IndexedSeq[SqlToken]] = {
    val tokens = ArrayBuffer.empty[SqlToken]
    var i = 0
    val n = sql.length
    def word(c: Char) = c.isLetterOrDigit || c == '_'
    while (i < n) {
      val c = sql.charAt(i)
      if (c.isWhitespace) i += 1
      else if (sql.startsWith("--", i)) {
        val end = sql.indexOf('\n', i)
        i = if (end < 0) n else end + 1
      } else if (sql.startsWith("/*", i)) {
        var depth = 0
        var closed = false
        while (i < n && !closed) {
          if (sql.startsWith("/*", i)) { depth += 1; i += 2 }
          else if (sql.startsWith("*/", i)) { depth -= 1; i += 2; closed = depth == 0 }
          else i += 1
        }
        if (!closed) return None
      } else if (c == '`' || c == '\'' || c == '"') {
        val start = i
        val text = new StringBuilder
        i += 1
        var closed = false
        while (i < n && !closed) {
          val d = sql.charAt(i)
          if (d == c && i + 1 < n && sql.charAt(i + 1) == c) { text += c; i += 2 }
          else if (d == c) { closed = true; i += 1 }
          else if (d == '\\' && c != '`' && i + 1 < n) { text += d += sql.charAt(i + 1); i += 2 }
          else { text += d; i += 1 }
        }
        if (!closed) return None
        tokens += (if (c == '`') SqlToken(text.result(), start, quoted = true) else SqlToken(sql.substring(start, i), start, quoted = false))
      } else if (word(c)) {
        val start = i
        while (i < n && word(sql.charAt(i))) i += 1
        tokens += SqlToken(sql.substring(start, i), start, quoted = false)
      } else {
        tokens += SqlToken(c.toString, i, quoted = false)
        i += 1
      }
    }
    Some(tokens.toIndexedSeq)
  }
}
