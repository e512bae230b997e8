package sparkpersist.stats

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.types._

import sparkpersist.codec.Json

/**
 * JSON encoding of [[NestedStats]], the value of a column's `nested` field:
 *
 *  - struct: `{"struct": {"<field>": <value stats>, ...}}`
 *  - array: `{"array": {"sizes": [min, max], "count": <elements>, "element": <value stats>}}`
 *  - map: `{"map": {"sizes": [min, max], "count": <entries>, "key": <value stats>, "value": <value stats>}}`
 *  - JSON document (VARIANT or JSON text): `{"json": ...}`, see [[JsonStatsCodec]]
 *
 * where a value's stats are `{"nulls", "lower", "upper", "nested"}` as a column's, typed by the
 * field, element, key or value type.
 *
 * Reading only ever widens on damage: a malformed field, element, key or value loses its stats
 * alone; nested stats of the wrong kind for the type, or with unreadable counts or sizes, are
 * dropped whole (the column keeps its own null count and bounds).
 */
private[stats] object NestedStatsCodec {

  def write(dt: DataType, nested: NestedStats, what: String): ObjectNode = {
    val node = Json.obj()
    (dt, nested) match {
      case (st: StructType, s: StructStats) =>
        val fields = node.putObject("struct")
        s.fields.toSeq.sortBy(_._1).foreach { case (name, c) =>
          val field = st.fields.find(_.name == name).getOrElse(throw new IllegalArgumentException(
            s"Nested stats of $what name field '$name', which ${st.catalogString} does not have"))
          StatsCodec.writeColumn(fields.putObject(name), field.dataType, c, s"$what.$name")
        }
      case (at: ArrayType, a: ArrayStats) =>
        val o = node.putObject("array")
        writeSizes(o, a.minSize, a.maxSize, a.elementCount)
        a.elements.foreach(StatsCodec.writeColumn(o.putObject("element"), at.elementType, _, s"$what[]"))
      case (mt: MapType, m: MapStats) =>
        val o = node.putObject("map")
        writeSizes(o, m.minSize, m.maxSize, m.entryCount)
        m.keys.foreach(StatsCodec.writeColumn(o.putObject("key"), mt.keyType, _, s"keys of $what"))
        m.values.foreach(StatsCodec.writeColumn(o.putObject("value"), mt.valueType, _, s"values of $what"))
      case (VariantType | _: StringType, j: JsonStats) =>
        node.set[JsonNode]("json", JsonStatsCodec.write(j))
      case _ => throw new IllegalArgumentException(
        s"${nested.getClass.getSimpleName} cannot describe $what, of type ${dt.catalogString}")
    }
    node
  }

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
      case (VariantType | _: StringType, List("json")) => JsonStatsCodec.read(node.get("json"))
      case _ => None
    } catch {
      case NonFatal(_) => None
    }

  /** The stats of one nested value (a field, element, key or value), or None if malformed. */
  private def readValue(dt: DataType, node: JsonNode): Option[ColumnStats] =
    try {
      val nulls = JsonStatsCodec.count(node, "nulls")
      def bound(name: String) = Option(node.get(name)).flatMap(StatsCodec.decodeBound(dt, _))
      Some(ColumnStats(nulls, bound("lower"), bound("upper"),
        Option(node.get("nested")).flatMap(read(dt, _))))
    } catch {
      case NonFatal(_) => None
    }

  private def writeSizes(node: ObjectNode, min: Int, max: Int, count: Long): Unit = {
    node.putArray("sizes").add(min).add(max)
    node.put("count", count)
  }

  private def readSizes(node: JsonNode): (Int, Int, Long) = {
    val sizes = node.get("sizes")
    require(sizes != null && sizes.isArray && sizes.size() == 2, "sizes must be [min, max]")
    val (min, max) = (sizes.get(0), sizes.get(1))
    require(min.isInt && max.isInt && 0 <= min.intValue() && min.intValue() <= max.intValue(),
      s"sizes must be 0 <= min <= max, got $sizes")
    (min.intValue(), max.intValue(), JsonStatsCodec.count(node, "count"))
  }
}
