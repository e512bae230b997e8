package sparkpersist.stats.legacy

import java.nio.ByteBuffer
import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}
import java.util.Base64

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.{BooleanNode, IntNode, LongNode, ObjectNode, TextNode}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.codec.Json
import sparkpersist.schema.ShardSchema
import sparkpersist.stats.{ArrayStats, BinaryStatsCodec, CastStats, CollatedStrings, ColumnStats, JsonScalarStats, JsonStats, MapStats, MembershipCodec, MembershipFilter, NestedStats, PartStats, StructStats}

/**
 * The legacy JSON stats as tests handle them: stats written as releases before binary stats wrote
 * them (this writer, kept in the tests only: nothing in sparkpersist writes them any more), and read
 * back by [[JsonPartStatsReader]]. The encoding is described on the readers.
 */
final class LegacyStatsJson(columnTypes: Map[Int, DataType]) {
  import LegacyStatsJson._

  private val reader = new JsonPartStatsReader(columnTypes)

  def decode(json: String): PartStats = reader.decode(json)

  def encode(stats: PartStats): String = new String(Json.write(toJson(stats)), StandardCharsets.UTF_8)

  def toJson(stats: PartStats): ObjectNode = {
    val node = Json.obj()
    node.put("rows", stats.rowCount)
    node.put("bytes", stats.bytes)
    val cols = node.putObject("columns")
    stats.columns.toSeq.sortBy(_._1).foreach { case (id, c) =>
      val dt = columnTypes.getOrElse(id, throw new IllegalArgumentException(
        s"Part stats name column id $id, which is not a column of the shard " +
          s"(column ids: ${columnTypes.keys.toSeq.sorted.mkString(", ")})"))
      val col = cols.putObject(id.toString)
      col.put("type", CollatedStrings.typeTag(dt))
      writeColumn(col, dt, c, s"column id $id")
    }
    val trimmed = node.putArray("trimmed")
    stats.trimmed.toSeq.sorted.foreach(id => trimmed.add(id))
    node
  }
}

object LegacyStatsJson {
  def apply(schema: ShardSchema): LegacyStatsJson =
    new LegacyStatsJson(schema.columns.iterator.map(c => c.id -> c.dataType).toMap)

  /**
   * Writes the null count, bounds and nested stats of `c` (a column of type `dt`, or a value
   * nested in one, named `what` in errors) into `node`.
   */
  private def writeColumn(node: ObjectNode, dt: DataType, c: ColumnStats, what: String): Unit = {
    node.put("nulls", c.nullCount)
    c.lower.flatMap(encodeBound(what, dt, _)).foreach(node.set[JsonNode]("lower", _))
    c.upper.flatMap(encodeBound(what, dt, _)).foreach(node.set[JsonNode]("upper", _))
    c.nested.foreach(n => node.set[JsonNode]("nested", writeNested(dt, n, what)))
    c.casts.foreach(p => node.set[JsonNode]("casts", writeCasts(p)))
    c.members.foreach(m => node.put("members", encodeMembers(m)))
    c.variantParse.foreach { v =>
      val p = node.putObject("variantParse")
      p.put("parsed", v.parsed)
      p.put("parser", v.parser)
    }
  }

  /** The JSON form of one bound, or None for a type without encoded bounds. */
  private def encodeBound(what: String, dt: DataType, value: Any): Option[JsonNode] = {
    def wrongClass: Nothing = throw new IllegalArgumentException(
      s"A stats bound of $what (type ${dt.catalogString}) must be Catalyst's internal " +
        s"value of that type, got ${value.getClass.getName}: $value")
    if (!BinaryStatsCodec.supportsBounds(dt)) None
    else Some((dt, value) match {
      case (BooleanType, b: Boolean) => BooleanNode.valueOf(b)
      case (ByteType, b: Byte) => IntNode.valueOf(b.toInt)
      case (ShortType, s: Short) => IntNode.valueOf(s.toInt)
      case (IntegerType | DateType | _: YearMonthIntervalType, i: Int) => IntNode.valueOf(i)
      case (LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType, l: Long) =>
        LongNode.valueOf(l)
      case (FloatType, f: Float) => TextNode.valueOf(java.lang.Float.toString(f))
      case (DoubleType, d: Double) => TextNode.valueOf(java.lang.Double.toString(d))
      case (_: DecimalType, d: Decimal) => TextNode.valueOf(d.toJavaBigDecimal.toPlainString)
      case (_: StringType, s: UTF8String) =>
        val bytes = s.getBytes
        if (isValidUtf8(bytes)) TextNode.valueOf(s.toString)
        else Json.obj().put("utf8Bytes", Base64.getEncoder.encodeToString(bytes))
      case (BinaryType, b: Array[Byte]) => TextNode.valueOf(Base64.getEncoder.encodeToString(b))
      case _ => wrongClass
    })
  }

  /** Strict UTF-8 (no overlong forms, no surrogates): exactly the bytes a Java string re-encodes to. */
  private def isValidUtf8(bytes: Array[Byte]): Boolean =
    try {
      StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes))
      true
    } catch {
      case _: CharacterCodingException => false
    }

  private def encodeMembers(m: MembershipFilter): String = Base64.getEncoder.encodeToString(MembershipCodec.encode(m))

  /** What [[JsonNestedStatsReader]] reads. */
  private def writeNested(dt: DataType, nested: NestedStats, what: String): ObjectNode = {
    val node = Json.obj()
    def sizes(o: ObjectNode, min: Int, max: Int, count: Long): Unit = {
      o.putArray("sizes").add(min).add(max)
      o.put("count", count)
    }
    (dt, nested) match {
      case (st: StructType, s: StructStats) =>
        val fields = node.putObject("struct")
        s.fields.toSeq.sortBy(_._1).foreach { case (name, c) =>
          val field = st.fields.find(_.name == name).getOrElse(throw new IllegalArgumentException(
            s"Nested stats of $what name field '$name', which ${st.catalogString} does not have"))
          writeColumn(fields.putObject(name), field.dataType, c, s"$what.$name")
        }
      case (at: ArrayType, a: ArrayStats) =>
        val o = node.putObject("array")
        sizes(o, a.minSize, a.maxSize, a.elementCount)
        a.elements.foreach(writeColumn(o.putObject("element"), at.elementType, _, s"$what[]"))
      case (mt: MapType, m: MapStats) =>
        val o = node.putObject("map")
        sizes(o, m.minSize, m.maxSize, m.entryCount)
        m.keys.foreach(writeColumn(o.putObject("key"), mt.keyType, _, s"keys of $what"))
        m.values.foreach(writeColumn(o.putObject("value"), mt.valueType, _, s"values of $what"))
      case (VariantType | _: StringType, j: JsonStats) =>
        node.set[JsonNode]("json", writeDocument(j))
      case _ => throw new IllegalArgumentException(
        s"${nested.getClass.getSimpleName} cannot describe $what, of type ${dt.catalogString}")
    }
    node
  }

  /** What [[JsonDocumentStatsReader]] reads. */
  private[legacy] def writeDocument(j: JsonStats): ObjectNode = {
    val node = Json.obj()
    node.put("count", j.count)
    if (j.jsonNulls > 0) node.put("nulls", j.jsonNulls)
    if (j.others > 0) node.put("other", j.others)
    def scalar(name: String, s: JsonScalarStats, dt: DataType): Unit =
      if (s.count > 0) {
        val o = node.putObject(name)
        o.put("count", s.count)
        s.lower.flatMap(encodeBound(s"JSON $name bound", dt, _)).foreach(o.set[JsonNode]("lower", _))
        s.upper.flatMap(encodeBound(s"JSON $name bound", dt, _)).foreach(o.set[JsonNode]("upper", _))
        s.members.foreach(m => o.put("members", encodeMembers(m)))
      }
    scalar("bool", j.booleans, BooleanType)
    if (j.numbers.count > 0) {
      val n = node.putObject("num")
      n.put("count", j.numbers.count)
      j.numbers.lower.foreach(v => n.put("lower", v.toString))
      j.numbers.upper.foreach(v => n.put("upper", v.toString))
      n.put("integral", j.numbers.integral)
      j.numbers.members.foreach(m => n.put("members", encodeMembers(m)))
    }
    scalar("str", j.strings, StringType)
    j.casts.foreach(c => node.set[JsonNode]("casts", writeCasts(c)))
    if (j.objects.count > 0) {
      val o = node.putObject("obj")
      o.put("count", j.objects.count)
      val keys = o.putObject("keys")
      j.objects.keys.toSeq.sortBy(_._1).foreach { case (k, v) => keys.set[JsonNode](k, writeDocument(v)) }
    }
    if (j.arrays.count > 0) {
      val a = node.putObject("arr")
      a.put("count", j.arrays.count)
      a.putArray("sizes").add(j.arrays.minSize).add(j.arrays.maxSize)
      j.arrays.elements.foreach(e => a.set[JsonNode]("elements", writeDocument(e)))
    }
    node
  }

  /** What [[JsonCastStatsReader]] reads. */
  private def writeCasts(c: CastStats): ObjectNode = {
    val node = Json.obj()
    node.put("zone", c.zone)
    node.put("unparsed", c.unparsed)
    c.timestampNtz.foreach { range =>
      val v = node.putObject("timestampNtz")
      v.put("count", range.count)
      range.lower.foreach(b => v.put("lower", b.asInstanceOf[Long]))
      range.upper.foreach(b => v.put("upper", b.asInstanceOf[Long]))
    }
    c.views.zip(JsonCastStatsReader.viewTypes).foreach { case ((name, range), (_, dt)) =>
      if (range.count > 0) {
        val v = node.putObject(name)
        v.put("count", range.count)
        def put(field: String, bound: Option[Any]): Unit = bound.foreach {
          case d: java.math.BigDecimal => v.put(field, d.toString)
          case b => encodeBound(s"cast stats '$name'", dt.get, b).foreach(v.set[JsonNode](field, _))
        }
        put("lower", range.lower)
        put("upper", range.upper)
      }
    }
    node
  }
}
