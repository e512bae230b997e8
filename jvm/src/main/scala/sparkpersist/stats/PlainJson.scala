package sparkpersist.stats

import org.apache.spark.unsafe.types.UTF8String

/**
 * Reads JSON documents of a plain subset directly over their bytes, for [[JsonTextCollector]],
 * which otherwise sets up a Jackson parser for every value (about half of its time). The subset:
 * objects and arrays nested at most [[PlainJson.MaxDepth]] deep; strings of printable ASCII
 * without escapes, keys of at most [[PlainJson.MaxKeyBytes]] bytes; integers of at most 18
 * digits without fraction or exponent (`-?(0|[1-9][0-9]*)`); `true`, `false`, `null`; the four
 * JSON whitespace bytes; at most [[JsonTextCollector.MaxProvenKeys]] keys and
 * [[JsonTextCollector.MaxProvenBytes]] bytes in all. Jackson reads such a document, in its
 * default (strict) features and read limits, as exactly the tokens this reader sees, and every
 * document of the subset is one valid JSON document.
 *
 * [[accepts]] recognises the subset first and reports nothing; [[report]] then walks the
 * accepted document into its places in the order and with the values the Jackson walk would
 * report (`JsonTextCollectorSuite` compares the two on random documents). Anything outside the
 * subset (decimals, escapes, non-ASCII text, syntax errors) goes to Jackson, whose answer stands.
 */
private[stats] final class PlainJson {
  import PlainJson._

  private val text = new TextBytes
  private var i = 0
  private var n = 0
  /** The names of the keys met so far in this document, by position: documents of one shape reuse them. */
  private var names = new Array[String](16)
  private var keyIndex = 0

  /** Whether `json` is one document of the subset (see the class); points this reader at it. */
  def accepts(json: UTF8String): Boolean = {
    text.of(json)
    n = text.numBytes
    i = 0
    if (n > JsonTextCollector.MaxProvenBytes) return false
    var depth = 0
    var objects = 0L // bit d: the container at depth d + 1 is an object
    var keys = 0
    var expectValue = true
    while (true) {
      skipSpace()
      if (expectValue) {
        if (i >= n) return false
        val b = text.getByte(i)
        if (b == '{' || b == '[') {
          if (depth == MaxDepth) return false
          objects = if (b == '{') objects | (1L << depth) else objects & ~(1L << depth)
          depth += 1
          i += 1
          skipSpace()
          if (i < n && text.getByte(i) == (if (b == '{') '}' else ']')) {
            i += 1
            depth -= 1
            expectValue = false
          } else if (b == '{') {
            keys += 1
            if (keys > JsonTextCollector.MaxProvenKeys || !acceptKey()) return false
          }
        } else if (!acceptScalar()) return false
        else expectValue = false
      } else {
        if (depth == 0) return i == n
        if (i >= n) return false
        val b = text.getByte(i)
        i += 1
        val inObject = ((objects >>> (depth - 1)) & 1L) == 1L
        if (b == ',') {
          if (inObject) {
            keys += 1
            if (keys > JsonTextCollector.MaxProvenKeys || !acceptKey()) return false
          }
          expectValue = true
        } else if (b == (if (inObject) '}' else ']')) depth -= 1
        else return false
      }
    }
    false
  }

  /**
   * Reports the document [[accepts]] accepted last to `root`, noting its keys in `walk` as the
   * Jackson walk does; false if an object has a duplicate key (the document's stats are then void).
   */
  def report(root: JsonPlace, walk: JsonTextCollector.Walk): Boolean = {
    i = 0
    keyIndex = 0
    value(root, walk)
  }

  private def value(place: JsonPlace, walk: JsonTextCollector.Walk): Boolean = {
    skipSpace()
    val b = text.getByte(i)
    if (place == null) {
      if (b == '{' || b == '[') walk.whole = false
      skipValue()
      true
    } else if (b == '{') obj(place, walk)
    else if (b == '[') array(place, walk)
    else {
      if (b == '"') {
        val start = i + 1
        i = stringEnd(start)
        place.addString(text.slice(start, i - 1 - start))
      } else if (b == 't') { i += 4; place.addBoolean(true) }
      else if (b == 'f') { i += 5; place.addBoolean(false) }
      else if (b == 'n') { i += 4; place.addNull() }
      else place.addLong(integer())
      true
    }
  }

  private def array(place: JsonPlace, walk: JsonTextCollector.Walk): Boolean = {
    val elements = place.elementPlace()
    var size = 0
    var more = opensWithMembers(']')
    while (more) {
      if (!value(elements, walk)) return false
      size += 1
      more = nextMember()
    }
    place.addArray(size)
    true
  }

  private def obj(place: JsonPlace, walk: JsonTextCollector.Walk): Boolean = {
    place.addObject()
    val from = walk.objectStart
    var seen: java.util.HashSet[String] = null
    var more = opensWithMembers('}')
    while (more) {
      skipSpace()
      val name = keyName()
      skipSpace()
      i += 1 // ':'
      walk.keys += 1
      if (seen == null && walk.manyKeys(from)) seen = walk.keySet(from)
      if (!walk.newKey(from, name, seen) || !value(place.key(name), walk)) return false
      more = nextMember()
    }
    if (seen == null) walk.objectEnd(from)
    true
  }

  /** Steps into the container opening at `i`; false (and past it) if it closes with `close` at once. */
  private def opensWithMembers(close: Char): Boolean = {
    i += 1
    skipSpace()
    val empty = text.getByte(i) == close
    if (empty) i += 1
    !empty
  }

  /** Steps past the comma or the closing bracket after a member; true after a comma. */
  private def nextMember(): Boolean = {
    skipSpace()
    val comma = text.getByte(i) == ','
    i += 1
    comma
  }

  /** The key at `i` (a string), as a `String`: the one this position of the last document had if the same. */
  private def keyName(): String = {
    val start = i + 1
    i = stringEnd(start)
    val length = i - 1 - start
    if (keyIndex == names.length) names = java.util.Arrays.copyOf(names, keyIndex * 2)
    val known = names(keyIndex)
    val name = if (known != null && sameAscii(known, start, length)) known else {
      val chars = new Array[Char](length)
      var k = 0
      while (k < length) { chars(k) = text.getByte(start + k).toChar; k += 1 }
      new String(chars)
    }
    names(keyIndex) = name
    keyIndex += 1
    name
  }

  private def sameAscii(s: String, start: Int, length: Int): Boolean = s.length == length && {
    var k = 0
    while (k < length && s.charAt(k) == text.getByte(start + k)) k += 1
    k == length
  }

  /** The integer at `i` (accepted: at most 18 digits), read. */
  private def integer(): Long = {
    val negative = text.getByte(i) == '-'
    if (negative) i += 1
    var v = 0L
    while (i < n && isDigit(text.getByte(i))) { v = v * 10 + (text.getByte(i) - '0'); i += 1 }
    if (negative) -v else v
  }

  /** Skips the accepted value at `i`: strings hold no escapes, so brackets count outside quotes only. */
  private def skipValue(): Unit = {
    val b = text.getByte(i)
    if (b == '"') i = stringEnd(i + 1)
    else if (b == '{' || b == '[') {
      var depth = 0
      do {
        val c = text.getByte(i)
        if (c == '"') i = stringEnd(i + 1)
        else {
          if (c == '{' || c == '[') depth += 1 else if (c == '}' || c == ']') depth -= 1
          i += 1
        }
      } while (depth > 0)
    } else while (i < n && !isDelimiter(text.getByte(i))) i += 1
  }

  /** Past the closing quote of the string whose content starts at `from` (accepted: it has one). */
  private def stringEnd(from: Int): Int = {
    var k = from
    while (text.getByte(k) != '"') k += 1
    k + 1
  }

  private def skipSpace(): Unit = while (i < n && isSpace(text.getByte(i))) i += 1

  /** A key at `i` (after whitespace): a string, whitespace, a colon; false if not of the subset. */
  private def acceptKey(): Boolean = {
    skipSpace()
    if (i >= n || text.getByte(i) != '"') return false
    val start = i
    acceptString() && i - start - 2 <= MaxKeyBytes && { skipSpace(); i < n && text.getByte(i) == ':' && { i += 1; true } }
  }

  /** A string, an integer or a literal at `i`, followed by a delimiter or the end. */
  private def acceptScalar(): Boolean = {
    val b = text.getByte(i)
    val read =
      if (b == '"') acceptString()
      else if (b == 't') acceptWord(True)
      else if (b == 'f') acceptWord(False)
      else if (b == 'n') acceptWord(Null)
      else acceptInteger()
    read && (i == n || isDelimiter(text.getByte(i)))
  }

  private def acceptString(): Boolean = {
    i += 1
    while (i < n && { val b = text.getByte(i); b >= 0x20 && b < 0x7f && b != '"' && b != '\\' }) i += 1
    i < n && text.getByte(i) == '"' && { i += 1; true }
  }

  private def acceptWord(word: Array[Byte]): Boolean = {
    var k = 0
    while (k < word.length && i + k < n && text.getByte(i + k) == word(k)) k += 1
    k == word.length && { i += k; true }
  }

  private def acceptInteger(): Boolean = {
    if (text.getByte(i) == '-') i += 1
    val start = i
    while (i < n && isDigit(text.getByte(i))) i += 1
    val digits = i - start
    digits >= 1 && digits <= 18 && (digits == 1 || text.getByte(start) != '0')
  }
}

private[stats] object PlainJson {
  /** Deepest nesting of the subset (the recogniser keeps one bit per level). */
  val MaxDepth: Int = 64

  /** Longest key of the subset, in bytes (Jackson refuses names past its own, larger, limit). */
  val MaxKeyBytes: Int = 1024

  private val True = "true".getBytes("US-ASCII")
  private val False = "false".getBytes("US-ASCII")
  private val Null = "null".getBytes("US-ASCII")

  private def isDigit(b: Byte): Boolean = b >= '0' && b <= '9'

  private def isSpace(b: Byte): Boolean = b == ' ' || b == '\t' || b == '\n' || b == '\r'

  private def isDelimiter(b: Byte): Boolean = isSpace(b) || b == ',' || b == '}' || b == ']'
}
