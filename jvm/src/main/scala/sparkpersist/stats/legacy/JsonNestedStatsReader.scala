package sparkpersist.stats.legacy

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.JsonNode
import org.apache.spark.sql.types._

import sparkpersist.stats.{ArrayStats, ColumnStats, MapStats, NestedStats, StructStats}

/**
 * Reads the legacy JSON encoding of [[NestedStats]] (read-only: see the package), the value of a
 * column's `nested` field:
 *
 *  - struct: `{"struct": {"<field>": <value stats>, ...}}`
 *  - array: `{"array": {"sizes": [min, max], "count": <elements>, "element": <value stats>}}`
 *  - map: `{"map": {"sizes": [min, max], "count": <entries>, "key": <value stats>, "value": <value stats>}}`
 *  - JSON document (VARIANT or JSON text): `{"json": ...}`, see [[JsonDocumentStatsReader]]
 *
 * where a value's stats are `{"nulls", "lower", "upper", "nested"}` as a column's, typed by the
 * field, element, key or value type.
 *
 * Reading only ever widens on damage: a malformed field, element, key or value loses its stats
 * alone; nested stats of the wrong kind for the type, or with unreadable counts or sizes, are
 * dropped whole (the column keeps its own null count and bounds).
 */
private[legacy] object JsonNestedStatsReader {

  /** The nested stats `node` encodes for a value of type `dt`, or None if unusable. */
  def read(dt: DataType, node: JsonNode): Option[NestedStats] =
    try (dt, node.fieldNames().asScala.toList) match {
      case (st: StructType, List("struct")) =>
        val fields = node.get("struct")
        Some(StructStats(st.fields.iterator.flatMap { f =>
          Option(fields.get(f.name)).flatMap(v => readValue(f.dataType, v)).map(f.name -> _)
        }.toMap))
      case (at: ArrayType, List("array")) =>
        val o = node.get("array")
        val (min, max, count) = readSizes(o)
        Some(ArrayStats(min, max, count, Option(o.get("element")).flatMap(readValue(at.elementType, _))))
      case (mt: MapType, List("map")) =>
        val o = node.get("map")
        val (min, max, count) = readSizes(o)
        Some(MapStats(min, max, count,
          Option(o.get("key")).flatMap(readValue(mt.keyType, _)),
          Option(o.get("value")).flatMap(readValue(mt.valueType, _))))
      case (VariantType | _: StringType, List("json")) => JsonDocumentStatsReader.read(node.get("json"))
      case _ => None
    } catch {
      case NonFatal(_) => None
    }

  /** The stats of one nested value (a field, element, key or value), or None if malformed. */
  private def readValue(dt: DataType, node: JsonNode): Option[ColumnStats] =
    try {
      val nulls = JsonDocumentStatsReader.count(node, "nulls")
      def bound(name: String) = Option(node.get(name)).flatMap(JsonPartStatsReader.bound(dt, _))
      Some(ColumnStats(nulls, bound("lower"), bound("upper"),
        Option(node.get("nested")).flatMap(read(dt, _))))
    } catch {
      case NonFatal(_) => None
    }

  private def readSizes(node: JsonNode): (Int, Int, Long) = {
    val sizes = node.get("sizes")
    require(sizes != null && sizes.isArray && sizes.size() == 2, "sizes must be [min, max]")
    val (min, max) = (sizes.get(0), sizes.get(1))
    require(min.isInt && max.isInt && 0 <= min.intValue() && min.intValue() <= max.intValue(),
      s"sizes must be 0 <= min <= max, got $sizes")
    (min.intValue(), max.intValue(), JsonDocumentStatsReader.count(node, "count"))
  }
}
