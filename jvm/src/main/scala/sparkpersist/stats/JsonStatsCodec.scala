package sparkpersist.stats

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.types.{BooleanType, DataType, StringType}

import sparkpersist.codec.Json

/**
 * JSON encoding of [[JsonStats]]. Kinds that do not occur are left out:
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
 * [[CastStats]] of the string values ([[CastStatsCodec]]), is absent in stats written without them
 * and dropped alone when damaged.
 *
 * Since a kind left out means "never occurs", a reader checks that the kinds' counts add up
 * to `count` and that no key is in more objects than there are: stats failing the check are
 * dropped whole (a damaged key or element alone loses its own stats), so damage can only widen
 * what readers assume.
 */
private[stats] object JsonStatsCodec {

  def write(j: JsonStats): ObjectNode = {
    val node = Json.obj()
    node.put("count", j.count)
    if (j.jsonNulls > 0) node.put("nulls", j.jsonNulls)
    if (j.others > 0) node.put("other", j.others)
    writeScalar(node, "bool", j.booleans, BooleanType)
    if (j.numbers.count > 0) {
      val n = node.putObject("num")
      n.put("count", j.numbers.count)
      j.numbers.lower.foreach(v => n.put("lower", v.toString))
      j.numbers.upper.foreach(v => n.put("upper", v.toString))
      n.put("integral", j.numbers.integral)
      j.numbers.members.foreach(m => n.put("members", encodeMembers(m)))
    }
    writeScalar(node, "str", j.strings, StringType)
    j.casts.foreach(c => node.set[JsonNode]("casts", CastStatsCodec.write(c)))
    if (j.objects.count > 0) {
      val o = node.putObject("obj")
      o.put("count", j.objects.count)
      val keys = o.putObject("keys")
      j.objects.keys.toSeq.sortBy(_._1).foreach { case (k, v) => keys.set[JsonNode](k, write(v)) }
    }
    if (j.arrays.count > 0) {
      val a = node.putObject("arr")
      a.put("count", j.arrays.count)
      a.putArray("sizes").add(j.arrays.minSize).add(j.arrays.maxSize)
      j.arrays.elements.foreach(e => a.set[JsonNode]("elements", write(e)))
    }
    node
  }

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

  private def writeScalar(node: ObjectNode, name: String, s: JsonScalarStats,
      dt: DataType): Unit =
    if (s.count > 0) {
      val o = node.putObject(name)
      o.put("count", s.count)
      s.lower.flatMap(StatsCodec.encodeBound(s"JSON $name bound", dt, _)).foreach(o.set[JsonNode]("lower", _))
      s.upper.flatMap(StatsCodec.encodeBound(s"JSON $name bound", dt, _)).foreach(o.set[JsonNode]("upper", _))
      s.members.foreach(m => o.put("members", encodeMembers(m)))
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
      objects, arrays, count(node, "other", absentIsZero = true), Option(node.get("casts")).flatMap(CastStatsCodec.read))
    val kinds = stats.jsonNulls + booleans.count + numbers.count + strings.count + objects.count +
      arrays.count + stats.others
    require(kinds == total, s"the kinds' counts add up to $kinds, not to $total")
    stats
  }

  private def readScalar(node: JsonNode, dt: DataType): JsonScalarStats =
    if (node == null) JsonScalarStats.none
    else JsonScalarStats(count(node, "count"),
      Option(node.get("lower")).flatMap(StatsCodec.decodeBound(dt, _)),
      Option(node.get("upper")).flatMap(StatsCodec.decodeBound(dt, _)),
      decodeMembers(node))

  private def encodeMembers(m: MembershipFilter): String = java.util.Base64.getEncoder.encodeToString(MembershipCodec.encode(m))

  /** The filter under `node`'s "members", or None when absent or damaged. */
  private def decodeMembers(node: JsonNode): Option[MembershipFilter] =
    Option(node.get("members")).filter(_.isTextual).flatMap(m =>
      scala.util.Try(java.util.Base64.getDecoder.decode(m.textValue())).toOption.flatMap(MembershipCodec.decode))
}
