package sparkpersist.stats.legacy

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.JsonNode
import org.apache.spark.sql.types.{DataType, DateType, DoubleType, LongType, TimestampType}

import sparkpersist.stats.{CastRange, CastStats}

/**
 * Reads the legacy JSON encoding of [[CastStats]] (read-only: see the package), the value of a
 * string column's `casts` field. Views that accept no value were left out, but for `timestampNtz`
 * (local microseconds), present whenever recorded, with `"count": 0` and no bounds when no value
 * casts (absent: recorded before it, "anything"):
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
private[legacy] object JsonCastStatsReader {

  /** The views in the order of [[CastStats.views]], with the type of their bounds (None: decimals). */
  private[legacy] val viewTypes: Seq[(String, Option[DataType])] = Seq("exact" -> Some(LongType),
    "truncated" -> Some(LongType), "decimal" -> None, "double" -> Some(DoubleType),
    "date" -> Some(DateType), "timestamp" -> Some(TimestampType))

  /** The stats `node` encodes, or None if they are damaged. */
  def read(node: JsonNode): Option[CastStats] =
    try {
      val zone = node.get("zone")
      require(zone != null && zone.isTextual, "'zone' must be a string")
      val views = viewTypes.map { case (name, dt) => Option(node.get(name)).fold(CastRange.none)(readRange(_, dt)) }
      val ntz = Option(node.get("timestampNtz")).map { v =>
        val count = JsonDocumentStatsReader.count(v, "count")
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
        JsonDocumentStatsReader.count(node, "unparsed"), ntz))
    } catch {
      case NonFatal(_) => None
    }

  private def readRange(node: JsonNode, dt: Option[DataType]): CastRange = {
    val count = JsonDocumentStatsReader.count(node, "count")
    def bound(field: String): Any = {
      val v = node.get(field)
      require(v != null, s"'$field' is missing")
      dt match {
        case Some(t) => JsonPartStatsReader.bound(t, v).getOrElse(throw new IllegalArgumentException(s"bad '$field': $v"))
        case None =>
          require(v.isTextual, s"'$field' must be a decimal string")
          new java.math.BigDecimal(v.textValue())
      }
    }
    require(count > 0, "a view that accepts no value is left out")
    CastRange(count, Some(bound("lower")), Some(bound("upper")))
  }
}
