package sparkpersist.stats.legacy

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.JsonNode
import org.apache.spark.sql.types.{BooleanType, DataType, StringType}

import sparkpersist.stats.{JsonArrayStats, JsonNumberStats, JsonObjectStats, JsonScalarStats, JsonStats, MembershipCodec, MembershipFilter}

/**
 * Reads the legacy JSON encoding of [[JsonStats]], the stats of JSON documents (read-only: see the
 * package). Kinds that do not occur were left out:
 * {{{
 * {"count": 7, "nulls": 1, "other": 1,
 *  "bool": {"count": 1, "lower": true, "upper": true},
 *  "num":  {"count": 2, "lower": "-1.5", "upper": "1E+400", "integral": false, "members": "<base64>"},
 *  "str":  {"count": 1, "lower": "a", "upper": "b", "members": "<base64>"},
 *  "casts": {"zone": "UTC", "unparsed": 1, ...},
 *  "obj":  {"count": 1, "keys": {"ts": {...}}},
 *  "arr":  {"count": 1, "sizes": [0, 3], "elements": {...}}}
 * }}}
 * Numbers are exact decimal strings; strings are encoded as string column bounds are, their
 * membership filter as a column's (base64 of [[MembershipCodec]]); `casts`, the
 * [[sparkpersist.stats.CastStats]] of the string values ([[JsonCastStatsReader]]), is absent in
 * stats written without them and dropped alone when damaged.
 *
 * Since a kind left out means "never occurs", the reader checks that the kinds' counts add up
 * to `count` and that no key is in more objects than there are: stats failing the check are
 * dropped whole (a damaged key or element alone loses its own stats), so damage can only widen
 * what readers assume.
 */
private[legacy] object JsonDocumentStatsReader {

  /** The stats `node` encodes, or None if they are damaged (see the class doc). */
  def read(node: JsonNode): Option[JsonStats] =
    try Some(readChecked(node)) catch { case NonFatal(_) => None }

  /** A non-negative integer field; absent is zero only where `absentIsZero`. */
  def count(node: JsonNode, field: String, absentIsZero: Boolean = false): Long = {
    val v = node.get(field)
    if (v == null && absentIsZero) 0L
    else {
      require(v != null && v.isIntegralNumber && v.canConvertToLong && v.longValue() >= 0,
        s"'$field' must be a count, got $v")
      v.longValue()
    }
  }

  private def readChecked(node: JsonNode): JsonStats = {
    require(node.isObject, "JSON stats must be an object")
    val total = count(node, "count")
    val booleans = readScalar(node.get("bool"), BooleanType)
    val strings = readScalar(node.get("str"), StringType)
    val numbers = Option(node.get("num")).fold(JsonNumberStats.none) { n =>
      def bound(f: String) = Option(n.get(f)).flatMap(v =>
        if (v.isTextual) (try Some(new java.math.BigDecimal(v.textValue())) catch { case NonFatal(_) => None })
        else None)
      val integral = n.get("integral")
      require(integral != null && integral.isBoolean, "'integral' must be a boolean")
      JsonNumberStats(count(n, "count"), bound("lower"), bound("upper"), integral.booleanValue(), decodeMembers(n))
    }
    val objects = Option(node.get("obj")).fold(JsonObjectStats.none) { o =>
      val objectCount = count(o, "count")
      val keys = Option(o.get("keys")).map(_.properties().asScala.iterator.flatMap { e =>
        read(e.getValue).filter(_.count <= objectCount).map(e.getKey -> _)
      }.toMap).getOrElse(Map.empty)
      JsonObjectStats(objectCount, keys)
    }
    val arrays = Option(node.get("arr")).fold(JsonArrayStats.none) { a =>
      val sizes = a.get("sizes")
      require(sizes != null && sizes.isArray && sizes.size() == 2 && sizes.get(0).isInt &&
        sizes.get(1).isInt && 0 <= sizes.get(0).intValue() && sizes.get(0).intValue() <= sizes.get(1).intValue(),
        s"array sizes must be [min, max], got $sizes")
      JsonArrayStats(count(a, "count"), sizes.get(0).intValue(), sizes.get(1).intValue(),
        Option(a.get("elements")).flatMap(read))
    }
    val stats = JsonStats(total, count(node, "nulls", absentIsZero = true), booleans, numbers, strings,
      objects, arrays, count(node, "other", absentIsZero = true), Option(node.get("casts")).flatMap(JsonCastStatsReader.read))
    val kinds = stats.jsonNulls + booleans.count + numbers.count + strings.count + objects.count +
      arrays.count + stats.others
    require(kinds == total, s"the kinds' counts add up to $kinds, not to $total")
    stats
  }

  private def readScalar(node: JsonNode, dt: DataType): JsonScalarStats =
    if (node == null) JsonScalarStats.none
    else JsonScalarStats(count(node, "count"),
      Option(node.get("lower")).flatMap(JsonPartStatsReader.bound(dt, _)),
      Option(node.get("upper")).flatMap(JsonPartStatsReader.bound(dt, _)),
      decodeMembers(node))

  /** The filter under `node`'s "members", or None when absent or damaged. */
  private def decodeMembers(node: JsonNode): Option[MembershipFilter] =
    Option(node.get("members")).filter(_.isTextual).flatMap(m =>
      scala.util.Try(java.util.Base64.getDecoder.decode(m.textValue())).toOption.flatMap(MembershipCodec.decode))
}
