package sparkpersist.stats

import java.nio.{BufferUnderflowException, ByteBuffer}

/**
 * The bytes of a [[MembershipFilter]], opaque to the stats encoding that carries them: a format
 * byte (1), a kind byte (0 exact, 1 Bloom), for Bloom the probe count, then the count of 64-bit
 * words and the words, big-endian. Bytes that do not decode give no filter (readers then keep
 * the part).
 */
object MembershipCodec {
  private val Version: Byte = 1

  def encode(f: MembershipFilter): Array[Byte] = f match {
    case MembershipFilter.Exact(hashes) =>
      val b = ByteBuffer.allocate(6 + 8 * hashes.length).put(Version).put(0.toByte).putInt(hashes.length)
      hashes.foreach(b.putLong)
      b.array()
    case MembershipFilter.Bloom(probes, bits) =>
      val b = ByteBuffer.allocate(7 + 8 * bits.length).put(Version).put(1.toByte).put(probes.toByte)
        .putInt(bits.length)
      bits.foreach(b.putLong)
      b.array()
  }

  def decode(bytes: Array[Byte]): Option[MembershipFilter] =
    try {
      val b = ByteBuffer.wrap(bytes)
      if (b.get() != Version) None
      else {
        val kind = b.get()
        val probes = if (kind == 1) b.get().toInt else 0
        val n = b.getInt()
        if (n < 0 || n.toLong * 8 != b.remaining()) None
        else {
          val words = Array.fill(n)(b.getLong())
          kind match {
            case 0 if words.sameElements(words.sorted) => Some(MembershipFilter.Exact(words))
            case 1 if probes > 0 && n > 0 => Some(MembershipFilter.Bloom(probes, words))
            case _ => None
          }
        }
      }
    } catch { case _: BufferUnderflowException => None }
}
