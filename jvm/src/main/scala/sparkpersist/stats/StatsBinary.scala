package sparkpersist.stats

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets

import scala.util.control.NonFatal

import org.apache.avro.io.{BinaryDecoder, DecoderFactory, Encoder, EncoderFactory}

/**
 * The framing of the binary stats encoding, on Avro's binary encoding (the Avro jar ships with
 * Spark): zig-zag varints for integers, length-prefixed bytes, little-endian IEEE floats, and
 * Avro arrays (block counts ended by 0). Every record of the stats is Avro data of a fixed
 * schema whose extensible part is a list of *fields*:
 * {{{
 *   {"type": "array", "items": {"type": "record", "name": "Field",
 *     "fields": [{"name": "kind", "type": "int"}, {"name": "payload", "type": "bytes"}]}}
 * }}}
 * A reader skips the kinds it does not know (a stat it cannot read is one it does not assume,
 * so an unknown kind only widens), and each payload is decoded on its own, so a damaged payload
 * costs that field alone.
 */
private[stats] object StatsBinary {

  /** The bytes `write` encodes. */
  def encode(write: Encoder => Unit): Array[Byte] = {
    val buffer = new ByteArrayOutputStream(32)
    val out = EncoderFactory.get().directBinaryEncoder(buffer, null)
    write(out)
    out.flush()
    buffer.toByteArray
  }

  /** A decoder over `bytes`. */
  def decoder(bytes: Array[Byte], offset: Int = 0): BinaryDecoder =
    DecoderFactory.get().binaryDecoder(bytes, offset, bytes.length - offset, null)

  /** Writes the list of fields `(kind, payload)`; fields with a None payload are left out. */
  def writeFields(out: Encoder, fields: (Int, Option[Array[Byte]])*): Unit = {
    val present = fields.collect { case (kind, Some(payload)) => (kind, payload) }
    writeArray(out, present) { case (kind, payload) =>
      out.writeInt(kind)
      out.writeBytes(payload)
    }
  }

  /**
   * Reads a list of fields, handing each field's kind and payload decoder to `field`, which
   * ignores the kinds it does not know.
   */
  def readFields(in: BinaryDecoder)(field: (Int, BinaryDecoder) => Unit): Unit =
    readArray(in) {
      val kind = in.readInt()
      field(kind, decoder(bytes(in)))
    }

  def writeArray[T](out: Encoder, items: Iterable[T])(item: T => Unit): Unit = {
    out.writeArrayStart()
    out.setItemCount(items.size.toLong)
    items.foreach { i =>
      out.startItem()
      item(i)
    }
    out.writeArrayEnd()
  }

  def readArray(in: BinaryDecoder)(item: => Unit): Unit = {
    var n = in.readArrayStart()
    while (n > 0) {
      var i = 0L
      while (i < n) {
        item
        i += 1
      }
      n = in.arrayNext()
    }
  }

  /** `read`'s value, or None if the bytes it reads are damaged. */
  def attempt[T](read: => T): Option[T] = try Some(read) catch { case NonFatal(_) => None }

  /** A count: a non-negative long. */
  def readCount(in: BinaryDecoder, what: String): Long = {
    val v = in.readLong()
    require(v >= 0, s"$what must be a count, got $v")
    v
  }

  /** Array or map sizes `0 <= min <= max`. */
  def readSizes(in: BinaryDecoder): (Int, Int) = {
    val (min, max) = (in.readInt(), in.readInt())
    require(0 <= min && min <= max, s"sizes must be 0 <= min <= max, got [$min, $max]")
    (min, max)
  }

  def writeDecimal(out: Encoder, d: java.math.BigDecimal): Unit = {
    out.writeInt(d.scale())
    out.writeBytes(d.unscaledValue().toByteArray)
  }

  def readDecimal(in: BinaryDecoder): java.math.BigDecimal = {
    val scale = in.readInt()
    val unscaled = bytes(in)
    require(unscaled.nonEmpty, "a decimal has at least one byte")
    new java.math.BigDecimal(new java.math.BigInteger(unscaled), scale)
  }

  /**
   * Avro `bytes`, their length checked against the bytes left in `in` before anything is
   * allocated: Avro's own `readBytes` allocates whatever length a damaged prefix claims (up to
   * 2 GB), so every length the stats read goes through here.
   */
  def bytes(in: BinaryDecoder): Array[Byte] = {
    val length = in.readLong()
    val left = in.inputStream().available()
    require(length >= 0 && length <= left, s"a length of $length bytes with $left bytes left")
    val out = new Array[Byte](length.toInt)
    in.readFixed(out)
    out
  }

  /** An Avro string, its length checked as [[bytes]]'s. */
  def string(in: BinaryDecoder): String = new String(bytes(in), StandardCharsets.UTF_8)

  /** Size in bytes of `v` as an Avro long (zig-zag varint). */
  def varintSize(v: Long): Int = {
    var z = (v << 1) ^ (v >> 63)
    var n = 1
    while ((z & ~0x7FL) != 0) {
      z >>>= 7
      n += 1
    }
    n
  }

  /** Size of Avro `bytes` of this length. */
  def bytesSize(length: Long): Long = varintSize(length) + length

  /** Size of an Avro array of `n` items whose encodings add up to `itemBytes`, in one block. */
  def arraySize(n: Long, itemBytes: Long): Long = (if (n > 0) varintSize(n) else 0) + itemBytes + 1
}
