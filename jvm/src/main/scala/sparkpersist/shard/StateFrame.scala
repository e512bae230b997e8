package sparkpersist.shard

import java.nio.charset.StandardCharsets.US_ASCII
import java.util.zip.CRC32C

import sparkpersist.codec.Check

/**
 * The checksum frame of a state file (a version or a rollup), whatever encodes its body: the
 * file is a newline, the body, then the trailer `\ncrc32c:<8 hex digits>\n`, the CRC-32C of the
 * body. Damage that leaves the body well-formed (a digit changed in a row count, a path, a
 * `since`) then fails the checksum instead of decoding to another state.
 *
 * Files written before the frame are JSON objects as Jackson writes them: they begin with `{`
 * and hold no raw newline, so a file holding one must be framed. A framed file reads as a
 * pre-frame one only if damage removed its leading newline and both newlines of its trailer.
 * Readers before the frame still read framed JSON files: JSON allows the leading newline, and
 * they stop at the end of the body's object.
 */
private[sparkpersist] object StateFrame {
  private val Newline: Byte = '\n'
  private val Label = "crc32c:"
  /** The trailer's length: newline, label, 8 hex digits, newline. */
  private val TrailerLength = 1 + Label.length + 8 + 1

  /** `body` framed with its checksum. */
  def seal(body: Array[Byte]): Array[Byte] = {
    val trailer = f"\n$Label${checksum(body, 0, body.length)}%08x\n".getBytes(US_ASCII)
    val out = new Array[Byte](1 + body.length + trailer.length)
    out(0) = Newline
    System.arraycopy(body, 0, out, 1, body.length)
    System.arraycopy(trailer, 0, out, 1 + body.length, trailer.length)
    out
  }

  /**
   * The body of the state file `bytes` (a file written before the frame is all body), or
   * IllegalArgumentException saying what is wrong: a frame cut short or damaged, or a body
   * whose checksum differs from the one recorded.
   */
  def open(bytes: Array[Byte]): Array[Byte] =
    if (!bytes.contains(Newline)) bytes
    else {
      val bodyEnd = bytes.length - TrailerLength
      Check.arg(bytes(0) == Newline && bodyEnd >= 1 && bytes.last == Newline && bytes(bodyEnd) == Newline,
        "its checksum frame (a newline before the body, a checksum line after it) is cut short or damaged")
      val trailer = new String(bytes, bodyEnd + 1, TrailerLength - 2, US_ASCII)
      val hex = trailer.stripPrefix(Label)
      Check.arg(trailer.startsWith(Label) && hex.forall(c => Character.digit(c, 16) >= 0 && !c.isUpper),
        s"its checksum line '$trailer' is damaged")
      val recorded = java.lang.Long.parseLong(hex, 16)
      val actual = checksum(bytes, 1, bodyEnd - 1)
      Check.arg(recorded == actual, f"its content does not match its checksum (crc32c $actual%08x, recorded $recorded%08x)")
      java.util.Arrays.copyOfRange(bytes, 1, bodyEnd)
    }

  private def checksum(bytes: Array[Byte], from: Int, length: Int): Long = {
    val crc = new CRC32C()
    crc.update(bytes, from, length)
    crc.getValue
  }
}
