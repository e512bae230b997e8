package sparkpersist.reliability

import java.nio.charset.StandardCharsets

import scala.util.Random

/**
 * Damage done to an encoded file, as a disk, a partial copy or a hand edit does it: flipped bits,
 * overwritten, deleted, duplicated or inserted spans, a cut-off tail, a number replaced by an
 * extreme one, or random bytes throughout.
 */
object Mutations {

  /** Characters that change the structure or the numbers of JSON when written over a byte. */
  private val Syntax = "\"{}[],:-0123456789eE.+ntfu\\".getBytes(StandardCharsets.US_ASCII)

  /** Numbers at the edges of what readers may take for a count, a bound or a version. */
  private val Extremes = Seq("-1", "0", "2147483648", "-9223372036854775808", "9223372036854775807",
    "9223372036854775808", "1e400", "-0.0", "NaN", "1.5", "99999999999999999999999999999999", "\"x\"", "null")

  /** Random bytes: mostly printable JSON syntax, sometimes anything. */
  def garbage(rnd: Random): Array[Byte] = {
    val n = rnd.nextInt(200)
    Array.fill(n)(if (rnd.nextInt(3) == 0) rnd.nextInt(256).toByte else Syntax(rnd.nextInt(Syntax.length)))
  }

  /** `bytes` with one to three random damages applied. */
  def mutate(bytes: Array[Byte], rnd: Random): Array[Byte] =
    (1 to 1 + rnd.nextInt(3)).foldLeft(bytes)((b, _) => once(b, rnd))

  private def once(b: Array[Byte], rnd: Random): Array[Byte] = {
    if (b.isEmpty) return garbage(rnd)
    val i = rnd.nextInt(b.length)
    rnd.nextInt(8) match {
      case 0 => b.updated(i, (b(i) ^ (1 << rnd.nextInt(8))).toByte)
      case 1 => b.updated(i, Syntax(rnd.nextInt(Syntax.length)))
      case 2 => b.take(i)
      case 3 => b.take(i) ++ b.drop(i + 1 + rnd.nextInt(math.min(40, b.length - i)))
      case 4 =>
        val n = 1 + rnd.nextInt(math.min(40, b.length - i))
        b.take(i + n) ++ b.slice(i, i + n) ++ b.drop(i + n)
      case 5 => b.take(i) ++ garbage(rnd).take(1 + rnd.nextInt(8)) ++ b.drop(i)
      case 6 => replaceNumber(b, i, rnd)
      case _ => b.updated(i, rnd.nextInt(256).toByte)
    }
  }

  /** The first run of digits at or after `from` replaced by an extreme number (or a span, if none). */
  private def replaceNumber(b: Array[Byte], from: Int, rnd: Random): Array[Byte] = {
    val start = b.indexWhere(c => c >= '0' && c <= '9', from)
    val extreme = Extremes(rnd.nextInt(Extremes.size)).getBytes(StandardCharsets.US_ASCII)
    if (start < 0) b.take(from) ++ extreme ++ b.drop(from)
    else {
      val end = b.indexWhere(c => !(c >= '0' && c <= '9'), start)
      b.take(if (start > 0 && b(start - 1) == '-') start - 1 else start) ++ extreme ++ (if (end < 0) Array.emptyByteArray else b.drop(end))
    }
  }
}
