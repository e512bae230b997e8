package sparkpersist.codec

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.ObjectNode

/** The Jackson mapper of the state and stats codecs, and the few tree helpers their writers use. */
private[sparkpersist] object Json {
  val mapper: ObjectMapper = new ObjectMapper()

  def obj(): ObjectNode = mapper.createObjectNode()

  def parse(text: String): JsonNode = mapper.readTree(text)

  def write(node: JsonNode): Array[Byte] = mapper.writeValueAsBytes(node)
}
