package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions
import org.apache.spark.sql.catalyst.expressions.{Cast, EqualNullSafe, EqualTo, Expression, GetJsonObject, InSet}
import org.apache.spark.sql.catalyst.expressions.variant.VariantGet
import org.apache.spark.sql.types.{ByteType, DataType, IntegerType, LongType, ShortType, StringType, VariantType}

import sparkpersist.stats.MembershipFilter

/**
 * Lookups at one place of JSON documents that the place's membership filters can answer
 * ([[sparkpersist.stats.JsonScalarStats.members]], [[sparkpersist.stats.JsonNumberStats.members]]):
 * `=`, `<=>` (with a non-null constant), `IN` and `InSet` with constants of
 *  - a JSON value read as a string: `variant_get(v, path, 'string')` (and `try_variant_get`),
 *    `v:path::string` (a cast of a VARIANT read) or `get_json_object(js, path)`;
 *  - a JSON value read as an integer (TINYINT to BIGINT): `variant_get(v, path, 'bigint')`,
 *    `v:path::int`, `CAST(get_json_object(js, path) AS BIGINT)`.
 *
 * Reads convert other kinds too (`5` reads as `"5"`, `"5"` and `true` as integers), so a lookup of
 * strings is ruled out only where the place holds strings and JSON nulls alone, one of integers
 * only where it holds numbers and JSON nulls alone (all of them integers of a long, or it would
 * have no filter), and the filter admits none of the constants.
 */
private[interpret] object JsonLookups {

  /** A lookup: the JSON read, the hashes of its constants, and whether it reads integers. */
  final case class Lookup(read: Expression, hashes: Array[Long], integers: Boolean)

  /** The lookup `e` is, if it is one. */
  def lookup(e: Expression): Option[Lookup] = e match {
    case EqualTo(Read(x), c) => of(x, Seq(c))
    case EqualTo(c, Read(x)) => of(x, Seq(c))
    case EqualNullSafe(Read(x), c) => of(x, Seq(c)).filter(_.hashes.nonEmpty)
    case EqualNullSafe(c, Read(x)) => of(x, Seq(c)).filter(_.hashes.nonEmpty)
    case expressions.In(Read(x), list) => of(x, list)
    case s: InSet => Read.unapply(s.child).map(x =>
      Lookup(x, s.hset.iterator.filter(_ != null).map(MembershipFilter.hash).toArray, integral(x.dataType)))
    case _ => None
  }

  /** A JSON read ([[reads]]), under any casts to its own type (the analyzer adds some). */
  private object Read {
    def unapply(e: Expression): Option[Expression] = Some(Interpreter.withoutOwnTypeCasts(e)).filter(reads)
  }

  /** Whether `x` reads a JSON value as a UTF8_BINARY string or as an integer. */
  def reads(x: Expression): Boolean =
    if (x.dataType == StringType) x match {
      case _: VariantGet | _: GetJsonObject => true
      case Cast(v: VariantGet, _, _, _) => v.dataType == VariantType
      case _ => false
    }
    else integral(x.dataType) && (x match {
      case _: VariantGet => true
      case Cast(v: VariantGet, _, _, _) => v.dataType == VariantType
      case Cast(_: GetJsonObject, _, _, _) => true
      case _ => false
    })

  private def integral(dt: DataType): Boolean = dt match {
    case ByteType | ShortType | IntegerType | LongType => true
    case _ => false
  }

  /** The lookup of `items` (constants of `x`'s type) on `x`, if all are constants. */
  private def of(x: Expression, items: Seq[Expression]): Option[Lookup] =
    if (items.exists(_.dataType != x.dataType)) None
    else {
      val values = items.map(Interpreter.constant)
      if (values.exists(_.isEmpty)) None
      else Some(Lookup(x, values.flatMap(_.get).map(MembershipFilter.hash).toArray, integral(x.dataType)))
    }

  /**
   * Whether the place (`place`: the JSON value at a lookup's path) may hold one of the constants'
   * `hashes`, for [[MemberNodes.Refine]]: false where it holds only values of the looked-up kind
   * and JSON nulls, and its filters admit none of the hashes; false-or-true otherwise.
   */
  final class Present(place: SpecNode, hashes: Array[Long], integers: Boolean) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val ruledOut = JsonSpec.of(place.eval(columns).values).exists { js =>
        val filters = if (integers) js.numberMembers.filter(_ => js.onlyNumbers) else js.members.filter(_ => js.onlyStrings)
        filters.exists(fs => !hashes.exists(h => fs.exists(_.mayContain(h))))
      }
      ResultSpec.bool(mayBeFalse = true, mayBeTrue = !ruledOut, nullable = false, fallible = false)
    }
  }
}
