package sparkpersist.stats

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.types.{DataType, DateType, DoubleType, LongType, TimestampType}

import sparkpersist.codec.Json

/**
 * JSON encoding of [[CastStats]], the value of a string column's `casts` field. Views that accept
 * no value are left out, but for `timestampNtz` (local microseconds), present whenever recorded,
 * with `"count": 0` and no bounds when no value casts (absent: recorded before it, "anything"):
 * {{{
 * {"zone": "UTC", "unparsed": 4,
 *  "exact": {"count": 96, "lower": -3, "upper": 250},
 *  "truncated": {"count": 96, "lower": -3, "upper": 250},
 *  "decimal": {"count": 96, "lower": "-3", "upper": "250"},
 *  "double": {"count": 96, "lower": "-3.0", "upper": "250.0"}}
 * }}}
 * Bounds are encoded as column bounds of the view's type are (decimals as exact decimal strings).
 * Stats that do not read back whole (a missing zone, a malformed count or bound, a view with a
 * count but without both bounds) are dropped whole: the column then has no cast stats, which
 * readers take as "anything".
 */
private[stats] object CastStatsCodec {

  private val viewTypes: Seq[(String, Option[DataType])] = Seq("exact" -> Some(LongType),
    "truncated" -> Some(LongType), "decimal" -> None, "double" -> Some(DoubleType),
    "date" -> Some(DateType), "timestamp" -> Some(TimestampType))

  def write(c: CastStats): ObjectNode = {
    val node = Json.obj()
    node.put("zone", c.zone)
    node.put("unparsed", c.unparsed)
    c.timestampNtz.foreach { range =>
      val v = node.putObject("timestampNtz")
      v.put("count", range.count)
      range.lower.foreach(b => v.put("lower", b.asInstanceOf[Long]))
      range.upper.foreach(b => v.put("upper", b.asInstanceOf[Long]))
    }
    c.views.zip(viewTypes).foreach { case ((name, range), (_, dt)) =>
      if (range.count > 0) {
        val v = node.putObject(name)
        v.put("count", range.count)
        def put(field: String, bound: Option[Any]): Unit = bound.foreach {
          case d: java.math.BigDecimal => v.put(field, d.toString)
          case b => StatsCodec.encodeBound(s"cast stats '$name'", dt.get, b).foreach(v.set[JsonNode](field, _))
        }
        put("lower", range.lower)
        put("upper", range.upper)
      }
    }
    node
  }

  /** The stats `node` encodes, or None if they are damaged. */
  def read(node: JsonNode): Option[CastStats] =
    try {
      val zone = node.get("zone")
      require(zone != null && zone.isTextual, "'zone' must be a string")
      val views = viewTypes.map { case (name, dt) => Option(node.get(name)).fold(CastRange.none)(readRange(_, dt)) }
      val ntz = Option(node.get("timestampNtz")).map { v =>
        val count = JsonStatsCodec.count(v, "count")
        if (count == 0) CastRange.none else {
          def bound(field: String): Long = {
            val b = v.get(field)
            require(b != null && b.canConvertToLong, s"timestampNtz '$field' must be a long")
            b.longValue()
          }
          CastRange(count, Some(bound("lower")), Some(bound("upper")))
        }
      }
      Some(CastStats(zone.textValue(), views(0), views(1), views(2), views(3), views(4), views(5),
        JsonStatsCodec.count(node, "unparsed"), ntz))
    } catch {
      case NonFatal(_) => None
    }

  private def readRange(node: JsonNode, dt: Option[DataType]): CastRange = {
    val count = JsonStatsCodec.count(node, "count")
    def bound(field: String): Any = {
      val v = node.get(field)
      require(v != null, s"'$field' is missing")
      dt match {
        case Some(t) => StatsCodec.decodeBound(t, v).getOrElse(throw new IllegalArgumentException(s"bad '$field': $v"))
        case None =>
          require(v.isTextual, s"'$field' must be a decimal string")
          new java.math.BigDecimal(v.textValue())
      }
    }
    require(count > 0, "a view that accepts no value is left out")
    CastRange(count, Some(bound("lower")), Some(bound("upper")))
  }
}
