package sparkpersist.stats

/**
 * The shape of an ASCII string, read in one pass over its bytes: which of the parsers behind
 * Spark's string casts could accept it. [[CastStatsCollector]] calls a parser only when the
 * shape admits the value, so that text which cannot parse costs one scan, and never an
 * exception. Each flag is exact or errs towards "could": a parser skipped on a flag's word
 * rejects the value.
 *
 * Shapes are read after trimming as Java's number parsers trim (`String.trim`: every byte up to
 * the space), on the trimmed content:
 *  - `decimal`: `[+-]? (d+ ('.' d*)? | '.' d+) ([eE] [+-]? d+)?`, which is exactly what
 *    `new java.math.BigDecimal(String)` accepts among ASCII strings (`Decimal.fromString`);
 *  - `floating`: a decimal, optionally followed by one of `fFdD`: what `Double.parseDouble`
 *    accepts besides hexadecimal floats and `NaN`/`Infinity`;
 *  - `otherDouble`: could be one of those others (contains `x`/`X`, or is, after an optional
 *    sign, `inf`, `infinity` or `nan` in any case), which the collector leaves to Spark's cast;
 *  - `digits`: holds an ASCII digit, without which no string is a decimal, a double other than
 *    the special words, a date or a timestamp (the legacy BIGINT grammar takes "." as 0);
 *  - `dot`: holds a '.', without which `UTF8String.toLong`'s legacy grammar (which truncates a
 *    fraction) is the exact one;
 *  - `plainNumber`: is, untrimmed, `[+-]? d* ('.' d*)?` with 1 to 18 digits (`digitCount`): an
 *    integer (no dot) or a plain decimal that every numeric cast reads as the number it spells
 *    and whose digits fit a `Long` unscaled: `unscaled`, negated after a '-', with `scale` digits
 *    after the dot, read in the same pass.
 *
 * [[read]] answers false for a string holding a byte outside ASCII (Unicode digits and spaces,
 * which some of Java's parsers take): those go to Spark's casts as they are.
 */
private[stats] final class TextShape {
  var digits = false
  var dot = false
  var decimal = false
  var floating = false
  var otherDouble = false
  var plainNumber = false
  var digitCount = 0
  /** A plain number's digits as an integer, negated after a leading '-'. */
  var unscaled = 0L
  /** A plain number's digits after the dot. */
  var scale = 0

  /** Reads `s`'s shape into the flags; false (flags unset) if `s` is not all ASCII. */
  def read(s: TextBytes): Boolean = {
    digits = false; dot = false; decimal = false; floating = false; otherDouble = false; plainNumber = false
    val n = s.numBytes
    var i = 0
    var hex = false
    var dots = 0
    var plain = true // only digits, dots and a leading sign so far
    var digitsAfterDot = 0
    var value = 0L // the digits, while there are at most 18
    digitCount = 0
    while (i < n) {
      val b = s.getByte(i)
      if (b < 0) return false
      if (b >= '0' && b <= '9') {
        digitCount += 1
        value = value * 10 + (b - '0')
        if (dots > 0) digitsAfterDot += 1
      } else if (b == '.') dots += 1
      else {
        if (b == 'x' || b == 'X') hex = true
        if (i > 0 || (b != '+' && b != '-')) plain = false
      }
      i += 1
    }
    digits = digitCount > 0
    dot = dots > 0
    plainNumber = plain && dots <= 1 && digitCount >= 1 && digitCount <= 18
    if (plainNumber) { // a decimal and a double, nothing else to read
      decimal = true
      floating = true
      unscaled = if (s.getByte(0) == '-') -value else value
      scale = digitsAfterDot
      return true
    }
    var from = 0
    var to = n
    while (from < to && (s.getByte(from) & 0xff) <= ' ') from += 1
    while (to > from && (s.getByte(to - 1) & 0xff) <= ' ') to -= 1
    val end = decimalEnd(s, from, to)
    decimal = end == to
    floating = decimal || (end == to - 1 && "fFdD".indexOf(s.getByte(to - 1).toInt) >= 0)
    otherDouble = hex || isSpecialLiteral(s, from, to)
    true
  }

  /** The end of the longest decimal at `from` (see the class), or -1 if none starts there. */
  private def decimalEnd(s: TextBytes, from: Int, to: Int): Int = {
    var i = from
    if (i < to && (s.getByte(i) == '+' || s.getByte(i) == '-')) i += 1
    val whole = digitsFrom(s, i, to)
    var mantissa = whole - i
    i = whole
    if (i < to && s.getByte(i) == '.') {
      val fraction = digitsFrom(s, i + 1, to)
      mantissa += fraction - i - 1
      i = fraction
    }
    if (mantissa == 0) return -1
    if (i < to && (s.getByte(i) == 'e' || s.getByte(i) == 'E')) {
      var j = i + 1
      if (j < to && (s.getByte(j) == '+' || s.getByte(j) == '-')) j += 1
      val exponent = digitsFrom(s, j, to)
      if (exponent > j) i = exponent
    }
    i
  }

  private def digitsFrom(s: TextBytes, from: Int, to: Int): Int = {
    var i = from
    while (i < to && s.getByte(i) >= '0' && s.getByte(i) <= '9') i += 1
    i
  }

  /** `[+-]?(inf|infinity|nan)`, any case: the words of the double cast's special literals and Java's. */
  private def isSpecialLiteral(s: TextBytes, from: Int, to: Int): Boolean = {
    var i = from
    if (i < to && (s.getByte(i) == '+' || s.getByte(i) == '-')) i += 1
    val len = to - i
    (len == 3 || len == 8) && "iInN".indexOf(s.getByte(i).toInt) >= 0 && TextShape.SpecialWords.exists { w =>
      w.length == len && (0 until len).forall(k => Character.toLowerCase(s.getByte(i + k).toChar) == w.charAt(k))
    }
  }
}

private object TextShape {
  private val SpecialWords = Seq("inf", "infinity", "nan")
}
