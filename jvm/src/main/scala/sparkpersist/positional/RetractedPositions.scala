package sparkpersist.positional

import java.io.{ByteArrayOutputStream, DataInputStream, DataOutputStream, IOException}
import java.util.zip.CRC32

import org.apache.hadoop.fs.{FileSystem, Path}

import sparkpersist.errors.PersistError

/**
 * What one run of a row-level operation retracted, by position. `retracting` names (in the
 * file's own directory) the run's parts that hold retractions; `targets` gives, for each part
 * (by key, relative to the shard's directory) some of whose rows they retract, the positions of
 * those rows. Every retraction in the `retracting` parts retracts exactly one of those rows, whose
 * diff is +1, and each of those rows is retracted once: so a snapshot holding all of these parts
 * may leave out the rows at the positions and every retraction of the `retracting` parts.
 *
 * The file (one per run, beside its parts): the magic `SPPOS`, format 1, the retracting names,
 * then per target its key, its count and its positions ascending as varint deltas, and last a
 * CRC-32 of every byte before it, so a damaged file is refused rather than misread.
 */
final case class RetractedPositions(retracting: Seq[String], targets: Map[String, DroppedPositions]) {
  /** How many rows these positions retract. */
  def rows: Long = targets.valuesIterator.map(_.size.toLong).sum

  /** Writes this to `path` (which must not exist). */
  def write(fs: FileSystem, path: Path): Unit = {
    val bytes = new ByteArrayOutputStream
    val out = new DataOutputStream(bytes)
    out.write(RetractedPositions.Magic)
    out.writeInt(RetractedPositions.Format)
    out.writeInt(retracting.size)
    retracting.foreach(out.writeUTF)
    out.writeInt(targets.size)
    targets.toSeq.sortBy(_._1).foreach { case (key, positions) =>
      out.writeUTF(key)
      out.writeInt(positions.size)
      var last = -1L
      positions.foreach { p =>
        RetractedPositions.writeVarLong(out, p - last)
        last = p
      }
    }
    out.flush()
    val crc = new CRC32
    crc.update(bytes.toByteArray)
    out.writeLong(crc.getValue)
    out.flush()
    val file = fs.create(path, false)
    try file.write(bytes.toByteArray) finally file.close()
  }
}

object RetractedPositions {
  private val Magic = "SPPOS".getBytes(java.nio.charset.StandardCharsets.US_ASCII)
  private val Format = 1

  /** The positions file at `path`; fails with an [[IOException]] naming it if it is damaged or unknown. */
  def read(fs: FileSystem, path: Path): RetractedPositions = {
    val bytes = {
      val in = fs.open(path)
      try in.readAllBytes() finally in.close()
    }
    def damaged(why: String) = PersistError("PERSIST_DAMAGED_POSITIONS_FILE", "path" -> path, "reason" -> why).unreadableFile
    if (bytes.length < Magic.length + 12) throw damaged("too short")
    val crc = new CRC32
    crc.update(bytes, 0, bytes.length - 8)
    val stored = java.nio.ByteBuffer.wrap(bytes, bytes.length - 8, 8).getLong
    if (crc.getValue != stored) throw damaged("checksum mismatch")
    val in = new DataInputStream(new java.io.ByteArrayInputStream(bytes, 0, bytes.length - 8))
    val magic = new Array[Byte](Magic.length)
    in.readFully(magic)
    if (!java.util.Arrays.equals(magic, Magic)) throw damaged("not a positions file")
    val format = in.readInt()
    if (format != Format) {
      throw PersistError("PERSIST_UNSUPPORTED_FORMAT.POSITIONS", "path" -> path, "found" -> format,
        "supported" -> Format).unreadableFile
    }
    val retracting = Vector.fill(in.readInt())(in.readUTF())
    val targets = Vector.fill(in.readInt()) {
      val key = in.readUTF()
      val positions = new Array[Long](in.readInt())
      var last = -1L
      var i = 0
      while (i < positions.length) {
        last += readVarLong(in)
        positions(i) = last
        i += 1
      }
      key -> new DroppedPositions(positions)
    }
    RetractedPositions(retracting, targets.toMap)
  }

  private def writeVarLong(out: DataOutputStream, value: Long): Unit = {
    var v = value
    while ((v & ~0x7FL) != 0) {
      out.writeByte(((v & 0x7F) | 0x80).toInt)
      v >>>= 7
    }
    out.writeByte(v.toInt)
  }

  private def readVarLong(in: DataInputStream): Long = {
    var result = 0L
    var shift = 0
    var b = 0
    while ({ b = in.readUnsignedByte(); result |= (b & 0x7FL) << shift; shift += 7; (b & 0x80) != 0 }) {
      if (shift > 63) throw new IOException("a varint longer than 64 bits")
    }
    result
  }
}
