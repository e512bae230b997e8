package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions
import org.apache.spark.sql.catalyst.expressions.{Cast, EqualNullSafe, EqualTo, Expression, GetJsonObject, InSet}
import org.apache.spark.sql.catalyst.expressions.variant.VariantGet
import org.apache.spark.sql.types.{StringType, VariantType}
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.stats.MembershipFilter

/**
 * Lookups of strings at one place of JSON documents, which the place's membership filter of
 * strings can answer ([[sparkpersist.stats.JsonScalarStats.members]]): `=`, `<=>` (with a non-null
 * constant), `IN` and `InSet` of a JSON value read as a string, by `variant_get(v, path, 'string')`
 * (and `try_variant_get`), `v:path::string` (a cast of a VARIANT read) or
 * `get_json_object(js, path)`, with string constants.
 *
 * Such reads turn numbers, booleans, objects and arrays into strings too (`5` reads as `"5"`), so a
 * lookup is ruled out only where the place holds strings and JSON nulls alone, and its filter
 * admits none of the constants.
 */
private[interpret] object JsonLookups {

  /** The read (a string-valued JSON read) and the constants of a lookup, if `e` is one. */
  def lookup(e: Expression): Option[(Expression, Seq[UTF8String])] = e match {
    case EqualTo(x, c) if reads(x) => strings(Seq(c)).map(x -> _)
    case EqualTo(c, x) if reads(x) => strings(Seq(c)).map(x -> _)
    case EqualNullSafe(x, c) if reads(x) => strings(Seq(c)).filter(_.nonEmpty).map(x -> _)
    case EqualNullSafe(c, x) if reads(x) => strings(Seq(c)).filter(_.nonEmpty).map(x -> _)
    case expressions.In(x, list) if reads(x) => strings(list).map(x -> _)
    case s: InSet if reads(s.child) => Some(s.child -> s.hset.iterator.collect { case u: UTF8String => u }.toSeq)
    case _ => None
  }

  /** Whether `x` reads a JSON value as a UTF8_BINARY string. */
  def reads(x: Expression): Boolean = x.dataType == StringType && (x match {
    case _: VariantGet | _: GetJsonObject => true
    case Cast(v: VariantGet, _, _, _) => v.dataType == VariantType
    case _ => false
  })

  /** The non-null string values of `items` (constants of the UTF8_BINARY string type), if all are constants. */
  private def strings(items: Seq[Expression]): Option[Seq[UTF8String]] =
    if (items.exists(_.dataType != StringType)) None
    else {
      val values = items.map(Interpreter.constant)
      if (values.exists(_.isEmpty)) None else Some(values.flatMap(_.get).collect { case u: UTF8String => u })
    }

  /**
   * A lookup refined by the place's filter of strings (`place`: the JSON value at the read's path):
   * never true where the place holds strings and JSON nulls alone and its filter admits none of
   * the constants' hashes (false or null, errors as before). A lookup the other specs already
   * decide is left as it is.
   */
  final class Refine(lookup: SpecNode, place: SpecNode, hashes: Array[Long]) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val r = lookup.eval(columns)
      if (!r.mayBeTrue || !r.mayBeFalse) r
      else JsonSpec.of(place.eval(columns).values) match {
        case Some(js) if js.onlyStrings && js.members.exists(fs => !hashes.exists(h => fs.exists(_.mayContain(h)))) =>
          ResultSpec.bool(mayBeFalse = true, mayBeTrue = false, r.nullable, r.fallible)
        case _ => r
      }
    }
  }

  /** The hashes of a lookup's constants. */
  def hashes(values: Seq[UTF8String]): Array[Long] = values.map(MembershipFilter.hash).toArray
}
