package sparkpersist.stats

import scala.util.control.NonFatal

import com.fasterxml.jackson.core.JsonFactory
import com.fasterxml.jackson.core.json.PackageVersion
import org.apache.spark.types.variant.VariantBuilder
import org.apache.spark.unsafe.types.UTF8String

/**
 * Whether Spark's `parse_json` accepts the values of a JSON text column (see
 * [[sparkpersist.schema.JsonColumns]]): `parsed` of the part's non-null values are valid UTF-8
 * and were turned into VARIANTs, at write, by the code `parse_json` runs
 * (`VariantBuilder.parseJson`, duplicate keys refused), under `parser` (the Spark and Jackson
 * versions, whose limits decide what parses: document size, nesting depth, number and string
 * lengths). A value whose text escapes a surrogate code unit (backslash, `u`, `d800` to `dfff`)
 * is not counted: `parse_json` stores a lone one as `?`, so two keys of an object may become one,
 * which `variant_get` refuses (VARIANT_DUPLICATE_KEY) when it rebuilds the object.
 *
 * Readers trust it only when `parsed` counts every non-null value and `parser` is the running
 * one ([[covers]]); then `parse_json` of the column raises on no value of the part and yields
 * the documents its [[JsonStats]] describe. Absent (stats written before it, a column whose JSON
 * stats were dropped): `parse_json` may raise.
 */
final case class VariantParse(parsed: Long, parser: String) {
  /** Whether every one of `nonNull` values is known to parse with the running Spark. */
  def covers(nonNull: Long): Boolean = parsed == nonNull && parser == VariantParse.Parser
}

object VariantParse {
  /** A factory as `VariantBuilder.parseJson` makes one (default settings), shared. */
  private val factory = new JsonFactory()

  /** The parser that decides what `parse_json` accepts in this JVM. */
  val Parser: String = s"spark ${org.apache.spark.SPARK_VERSION} jackson ${PackageVersion.VERSION}"

  /**
   * Whether `json` is valid UTF-8 without surrogate escapes that `parse_json` accepts with
   * duplicate keys refused.
   */
  def parses(json: UTF8String): Boolean = json.isValid && parsesValid(json)

  /** [[parses]] of a value already known to be valid UTF-8. */
  def parsesValid(json: UTF8String): Boolean =
    !escapesSurrogate(json) && (try {
      // What VariantBuilder.parseJson(String, false) runs, without a new JsonFactory per value
      // (most of its cost on small documents). A shared factory's field-name table only ever
      // makes a parse fail sooner (too many hash collisions), never succeed where a fresh one fails.
      val parser = factory.createParser(json.toString)
      try {
        parser.nextToken()
        VariantBuilder.parseJson(parser, false)
      } finally parser.close()
      true
    } catch {
      case NonFatal(_) => false
    })

  /** Whether `s` holds a backslash, `u` and a surrogate code unit (`d800` to `dfff`, any case). */
  private def escapesSurrogate(s: UTF8String): Boolean = {
    var i = 0
    val n = s.numBytes()
    while (i + 3 < n) {
      if (s.getByte(i) == '\\' && s.getByte(i + 1) == 'u' && (s.getByte(i + 2) | 0x20) == 'd' &&
          "89abcdefABCDEF".indexOf(s.getByte(i + 3).toInt) >= 0) return true
      i += 1
    }
    false
  }
}
