package sparkpersist.codec

import scala.util.control.NonFatal

import com.fasterxml.jackson.core.{JsonParser, JsonStreamContext, JsonToken}
import com.fasterxml.jackson.databind.JsonNode

/**
 * Pull-parsing of JSON for the state codec: a shard of many parts decodes without first
 * building a tree of all of it. The parser always sits on the first token of the value being
 * read; each read consumes that value whole.
 */
private[sparkpersist] final class JsonReader private (parser: JsonParser) {
  import JsonToken._

  /** Calls `field(name)` on each field of the object here, with the parser on the field's value. */
  def readObject(what: String)(field: String => Unit): Unit = {
    expect(START_OBJECT, s"$what must be an object")
    while (parser.nextToken() == FIELD_NAME) {
      val name = parser.currentName()
      parser.nextToken()
      field(name)
    }
  }

  /** The elements of the array here, each read by `element`. */
  def readArray[T](what: String)(element: => T): Vector[T] = {
    expect(START_ARRAY, s"$what must be an array")
    val out = Vector.newBuilder[T]
    while (parser.nextToken() != END_ARRAY) out += element
    out.result()
  }

  def long(what: String): Long = {
    expect(VALUE_NUMBER_INT, s"$what must be an integer")
    Check.arg(parser.getNumberType != JsonParser.NumberType.BIG_INTEGER, s"$what must be a 64-bit integer")
    parser.getLongValue
  }

  def int(what: String): Int = {
    val v = long(what)
    Check.arg(v.isValidInt, s"$what must be a 32-bit integer, got $v")
    v.toInt
  }

  def string(what: String): String = {
    expect(VALUE_STRING, s"$what must be a string")
    parser.getText
  }

  /** A base64 string's bytes, as Jackson writes a byte array. */
  def binary(what: String): Array[Byte] = {
    expect(VALUE_STRING, s"$what must be a base64 string")
    parser.getBinaryValue
  }

  def bool(what: String): Boolean = parser.currentToken() match {
    case VALUE_TRUE => true
    case VALUE_FALSE => false
    case _ => throw new IllegalArgumentException(s"$what must be true or false, got ${parser.getText}")
  }

  /** The value here as a tree: for small values that are decoded leniently, or handed on as JSON. */
  def tree(): JsonNode = parser.readValueAsTree[JsonNode]()

  /** Skips the value here (a field this reader does not know). */
  def skip(): Unit = parser.skipChildren()

  /**
   * Reads a value with `read`, or, if that fails, skips the rest of the value and returns None:
   * for parts of a file whose damage costs only that part (part statistics).
   */
  def recovering[T](read: => T): Option[T] = {
    // The context enclosing the value: on an object's or array's first token, the parser is already inside it.
    val enclosing: JsonStreamContext =
      if (parser.currentToken().isStructStart) parser.getParsingContext.getParent else parser.getParsingContext
    try Some(read)
    catch {
      case NonFatal(e) =>
        // Leave the parser on the last token of the failed value: back in the enclosing context.
        while (parser.getParsingContext ne enclosing) {
          if (parser.nextToken() == null) throw new IllegalArgumentException("unexpected end of JSON", e)
        }
        None
    }
  }

  private def expect(token: JsonToken, message: => String): Unit =
    if (parser.currentToken() != token) {
      throw new IllegalArgumentException(s"$message, got ${Option(parser.currentToken()).getOrElse("end of input")}")
    }
}

private[sparkpersist] object JsonReader {
  /** Reads the single JSON value in `bytes` with `read`. */
  def read[T](bytes: Array[Byte])(read: JsonReader => T): T = run(Json.mapper.createParser(bytes))(read)

  /** Reads the tree `node` with `read`. */
  def read[T](node: JsonNode)(read: JsonReader => T): T = run(node.traverse(Json.mapper))(read)

  /** The value of a field that must be present. */
  def required[T](value: Option[T], field: String): T =
    value.getOrElse(throw new IllegalArgumentException(s"missing field '$field'"))

  private def run[T](parser: JsonParser)(read: JsonReader => T): T =
    try {
      parser.nextToken()
      read(new JsonReader(parser))
    } finally parser.close()
}
