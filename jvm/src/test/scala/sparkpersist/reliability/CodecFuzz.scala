package sparkpersist.reliability

import java.nio.charset.StandardCharsets

import scala.util.Random

import com.fasterxml.jackson.core.JacksonException
import org.scalacheck.Gen
import org.scalacheck.rng.Seed
import org.apache.spark.sql.types.StringType

import sparkpersist.shard.{PartMeta, StateFiles, UnsupportedStateFormat}
import sparkpersist.stats._
import sparkpersist.stats.legacy.LegacyStatsJson

/**
 * Fuzzing of the stats and state codecs with random bytes and mutations ([[Mutations]]) of real
 * encodings. Each case must either decode or fail with a documented error (a malformed file:
 * IllegalArgumentException or Jackson's parse error; a newer format: [[UnsupportedStateFormat]]),
 * which the state log reports as `CorruptState` naming the file. Stats that do decode must be
 * consistent (every null count within `[0, rows]` of what it counts, a part's stats counting its
 * rows): stats that are not would let a reader skip a part that holds rows, which counts as data lost.
 */
object CodecFuzz {

  private val schema = StatsGen.schema
  private val codec = LegacyStatsJson(schema)

  /** `cases` stats records (`PartStats` JSON with nested, JSON and cast stats): 1 in 8 random bytes. */
  def stats(cases: Int, seed: Long): Tally = {
    val rnd = new Random(seed)
    val real = (0 until 64).map(i => codec.encode(withCasts(sample(StatsGen.part(schema, depth = 2), seed + i), rnd))
      .getBytes(StandardCharsets.UTF_8))
    (0 until cases).foldLeft(Tally.empty("stats codec fuzz")) { (t, i) =>
      val bytes = if (i % 8 == 0) Mutations.garbage(rnd) else Mutations.mutate(real(rnd.nextInt(real.size)), rnd)
      t ++ outcome("stats codec fuzz", bytes)(b => inconsistencies(codec.decode(new String(b, StandardCharsets.UTF_8))))
    }
  }

  /**
   * `cases` binary stats records ([[BinaryStatsCodec]]): 1 in 8 random bytes, the rest mutations of
   * real encodings, half of them with their checksum made to match again, so that the decoder
   * past the checksum meets damaged fields too.
   */
  def binaryStats(cases: Int, seed: Long): Tally = {
    val rnd = new Random(seed)
    val binary = BinaryStatsCodec(schema)
    val real = (0 until 64).map(i => binary.encode(withCasts(sample(StatsGen.part(schema, depth = 2), seed + i), rnd)))
    (0 until cases).foldLeft(Tally.empty("binary stats codec fuzz")) { (t, i) =>
      val bytes =
        if (i % 8 == 0) Mutations.garbage(rnd)
        else {
          val mutated = Mutations.mutate(real(rnd.nextInt(real.size)), rnd)
          if (i % 2 == 0) resealed(mutated) else mutated
        }
      t ++ outcome("binary stats codec fuzz", bytes)(b => inconsistencies(binary.decode(b)))
    }
  }

  /** `bytes` with the CRC-32C after the version byte recomputed over the rest (if long enough). */
  private[reliability] def resealed(bytes: Array[Byte]): Array[Byte] =
    if (bytes.length < 5) bytes
    else {
      val crc = new java.util.zip.CRC32C()
      crc.update(bytes, 5, bytes.length - 5)
      val sum = java.nio.ByteBuffer.allocate(4).putInt(crc.getValue.toInt).array()
      val copy = bytes.clone()
      System.arraycopy(sum, 0, copy, 1, 4)
      copy
    }

  /**
   * `cases` state files (create, append, compact, since, rollup) as written, with their checksum
   * frame: 1 in 8 random bytes. A damaged file that still decodes must decode to what was written
   * (damage to the frame alone may leave the body whole); anything else would be a wrong answer.
   */
  def state(cases: Int, seed: Long): Tally = {
    val rnd = new Random(seed)
    val real = StateFiles.encodings(rnd).map { file =>
      val written = StateFiles.decode(file, file.bytes)
      // Rollups load their stats columns on first use: load them now, outside the cases' allocations.
      StateFiles.parts(written).foreach(p => partInconsistencies(p))
      (file, written)
    }
    (0 until cases).foldLeft(Tally.empty("state codec fuzz")) { (t, i) =>
      val (file, written) = real(rnd.nextInt(real.size))
      val bytes = if (i % 8 == 0) Mutations.garbage(rnd) else Mutations.mutate(file.bytes, rnd)
      t ++ outcome("state codec fuzz", bytes) { b =>
        val decoded = StateFiles.decode(file, b)
        (if (decoded != written) Seq(s"${file.name} decoded to other content") else Nil) ++
          StateFiles.parts(decoded).flatMap(partInconsistencies)
      }
    }
  }

  /**
   * Decodes `bytes` with `decode` (returning what is inconsistent in the result) and judges it;
   * a decode that allocates more than [[allocationLimit]] fails too (a length taken on trust from
   * damaged bytes: an out-of-memory error or a slow read waiting to happen).
   */
  private def outcome(name: String, bytes: Array[Byte])(decode: Array[Byte] => Seq[String]): Tally = {
    def shown = new String(bytes, StandardCharsets.UTF_8).take(300)
    val allocatedBefore = threads.getCurrentThreadAllocatedBytes
    val judged = try decode(bytes) match {
      case Seq() => Tally.ok(name)
      case problems => Tally.failed(name, s"${problems.mkString(", ")} accepted from: $shown", lost = true)
    } catch {
      case _: IllegalArgumentException | _: JacksonException | _: UnsupportedStateFormat => Tally.ok(name)
      case e: Throwable if !e.isInstanceOf[InterruptedException] =>
        Tally.failed(name, s"${e.getClass.getName}: ${e.getMessage} from: $shown", lost = false)
    }
    val allocated = threads.getCurrentThreadAllocatedBytes - allocatedBefore
    if (judged.failures == 0 && allocated > allocationLimit(bytes.length)) {
      Tally.failed(name, s"allocated $allocated bytes decoding ${bytes.length} bytes: $shown", lost = false)
    } else judged
  }

  private val threads = java.lang.management.ManagementFactory.getThreadMXBean
    .asInstanceOf[com.sun.management.ThreadMXBean]

  /**
   * What decoding `n` bytes (stats or a state file of a few parts) may allocate: generous for what
   * the decoded objects need, far below a damaged length prefix believed (up to 2 GB).
   */
  private[reliability] def allocationLimit(n: Int): Long = (8L << 20) + 512L * n

  private def sample[T](gen: Gen[T], seed: Long): T =
    Iterator.from(0).flatMap(i => gen(Gen.Parameters.default, Seed(seed * 7919 + i))).next()

  /** The stats with cast stats on the UTF8_BINARY string columns that have stats. */
  private def withCasts(stats: PartStats, rnd: Random): PartStats = stats.copy(columns = stats.columns.map {
    case (id, c) if schema.columnById(id).exists(_.dataType == StringType) =>
      val lo = rnd.nextInt(1000) - 500L
      val range = CastRange(1 + rnd.nextInt(50), Some(lo), Some(lo + rnd.nextInt(1000)))
      id -> c.copy(casts = Some(CastStats("UTC", range, range, CastRange(range.count,
        Some(java.math.BigDecimal.valueOf(lo)), Some(java.math.BigDecimal.valueOf(lo + 1000))),
        CastRange.none, CastRange.none, CastRange.none, rnd.nextInt(5).toLong)))
    case other => other
  })

  private def partInconsistencies(p: PartMeta): Seq[String] =
    p.stats.toSeq.flatMap { s =>
      (if (s.rowCount != p.rowCount) Seq(s"part ${p.key}: stats count ${s.rowCount} rows, the part ${p.rowCount}") else Nil) ++
        inconsistencies(s).map(w => s"part ${p.key}: $w")
    }

  /** What in `stats` could let a reader skip a part holding rows: counts outside what they count. */
  def inconsistencies(stats: PartStats): Seq[String] =
    (if (stats.rowCount < 0) Seq(s"row count ${stats.rowCount}") else Nil) ++
      stats.columns.toSeq.flatMap { case (id, c) => column(c, stats.rowCount, s"column $id") }

  private def column(c: ColumnStats, count: Long, at: String): Seq[String] =
    (if (c.nullCount < 0 || c.nullCount > count) Seq(s"$at counts ${c.nullCount} nulls of $count values") else Nil) ++
      (c.nested match {
        case Some(StructStats(fields)) => fields.toSeq.flatMap { case (f, s) => column(s, count, s"$at.$f") }
        case Some(a: ArrayStats) => a.elements.toSeq.flatMap(column(_, a.elementCount, s"$at[]"))
        case Some(m: MapStats) => m.keys.toSeq.flatMap(column(_, m.entryCount, s"keys of $at")) ++
          m.values.toSeq.flatMap(column(_, m.entryCount, s"values of $at"))
        case _ => Nil
      })
}
