package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}
import org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke
import org.apache.spark.sql.catalyst.expressions.variant.{ParseJson, VariantExpressionEvalUtils}
import org.apache.spark.sql.types.BooleanType

import sparkpersist.stats.{JsonStats, PartStats}

/**
 * The spec of `parse_json(column)` (`raises`) or `try_parse_json(column)` over one part, for a
 * string column declared JSON: a VARIANT whose documents are the column's JSON text stats read
 * as `parse_json` reads them ([[ParsedJsonStats]]).
 *
 * Only when the column's [[sparkpersist.stats.VariantParse]] covers every non-null value of the
 * part (each was accepted, at write, by the parser `parse_json` runs, in this Spark version) is
 * the spec error-free and are the stats used; otherwise some value may raise (or be NULL for
 * `try_parse_json`) and the documents may be anything.
 */
final class ParseJsonSpecs(val columnId: Int, raises: Boolean) extends SlotSpecs {
  def apply(stats: PartStats): ResultSpec = stats.columns.get(columnId) match {
    case None => ResultSpec(nullable = true, fallible = raises, Values.All)
    case Some(c) =>
      val nonNull = stats.rowCount - c.nullCount
      if (nonNull <= 0) ResultSpec(nullable = c.nullCount > 0, fallible = false, Values.Empty)
      else {
        val parses = c.variantParse.exists(_.covers(nonNull))
        val values = c.nested match {
          case Some(js: JsonStats) if parses => JsonSpec.values(ParsedJsonStats.of(js)) match {
            case Values.Empty => Values.All // stats that count no document for non-null rows: corrupt
            case v => v
          }
          case _ => Values.All
        }
        ResultSpec(nullable = c.nullCount > 0 || (!parses && !raises), fallible = !parses && raises, values)
      }
  }
}

/**
 * `parse_json(child)` and `try_parse_json(child)`, before or after the optimizer replaces them by
 * their `StaticInvoke` of `VariantExpressionEvalUtils.parseJson(child, allowDuplicateKeys,
 * failOnError)` (Spark 4.2 and 4.3 add a fourth argument, `validateUnicodeInJsonParsing`: with it
 * false `parse_json` also accepts lone surrogates, which [[sparkpersist.stats.VariantParse]] never
 * counts as parsing): the child and whether a value that does not parse raises.
 */
object ParseJsonCall {
  private val evalUtils = VariantExpressionEvalUtils.getClass

  def unapply(e: Expression): Option[(Expression, Boolean)] = e match {
    case ParseJson(child, failOnError) => Some((child, failOnError))
    case s: StaticInvoke if s.staticObject == evalUtils && s.functionName == "parseJson" =>
      s.arguments match {
        case Seq(child, _, Literal(failOnError: Boolean, BooleanType), _*) => Some((child, failOnError))
        case _ => None
      }
    case _ => None
  }
}
