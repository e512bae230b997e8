package sparkpersist.shard

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.{ArrayNode, ObjectNode}

/**
 * The few Jackson tree helpers the explicit state and stats codecs share. Readers of a
 * required field fail with the field's name, so a damaged file says what is wrong.
 */
private[sparkpersist] object Json {
  val mapper: ObjectMapper = new ObjectMapper()

  def obj(): ObjectNode = mapper.createObjectNode()

  def arr(): ArrayNode = mapper.createArrayNode()

  def parse(bytes: Array[Byte]): JsonNode = mapper.readTree(bytes)

  def parse(text: String): JsonNode = mapper.readTree(text)

  def write(node: JsonNode): Array[Byte] = mapper.writeValueAsBytes(node)

  def field(node: JsonNode, name: String): JsonNode = {
    val v = node.get(name)
    if (v == null || v.isNull) throw new IllegalArgumentException(s"missing field '$name'")
    v
  }

  def long(node: JsonNode, name: String): Long = {
    val v = field(node, name)
    if (!v.isIntegralNumber || !v.canConvertToLong) {
      throw new IllegalArgumentException(s"field '$name' must be a 64-bit integer, got $v")
    }
    v.longValue()
  }

  def int(node: JsonNode, name: String): Int = {
    val v = field(node, name)
    if (!v.isIntegralNumber || !v.canConvertToInt) {
      throw new IllegalArgumentException(s"field '$name' must be a 32-bit integer, got $v")
    }
    v.intValue()
  }

  def string(node: JsonNode, name: String): String = {
    val v = field(node, name)
    if (!v.isTextual) throw new IllegalArgumentException(s"field '$name' must be a string, got $v")
    v.textValue()
  }

  def bool(node: JsonNode, name: String): Boolean = {
    val v = field(node, name)
    if (!v.isBoolean) throw new IllegalArgumentException(s"field '$name' must be true or false, got $v")
    v.booleanValue()
  }

  /** The elements of the array field `name` (required). */
  def array(node: JsonNode, name: String): Iterator[JsonNode] = {
    val v = field(node, name)
    if (!v.isArray) throw new IllegalArgumentException(s"field '$name' must be an array, got $v")
    v.elements().asScala
  }

  def fields(node: JsonNode): Iterator[(String, JsonNode)] =
    node.properties().asScala.iterator.map(e => e.getKey -> e.getValue)
}
