package sparkpersist.stats

import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets
import java.util.zip.CRC32C

import scala.util.control.NonFatal

import org.apache.avro.SchemaNormalization
import org.apache.avro.io.{BinaryDecoder, DecoderFactory, Encoder}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.schema.ShardSchema

/**
 * The compact binary encoding of [[PartStats]] (version [[BinaryStatsCodec.Version]]), what the
 * state stores and the stats budget measures. Avro binary data (see [[StatsBinary]]):
 * {{{
 *   part   := version: int, checksum: fixed(4), rows: long, bytes: long, trimmed: array<int>,
 *             columns: array<{id: int, type: fixed(8), stats: bytes<column>}>
 *   column := nulls: long, fields {1: lower, 2: upper, 3: nested, 4: casts, 5: members,
 *                                  6: variantParse}
 *   variantParse := parsed: long, parser: string
 * }}}
 * `checksum` is the CRC-32C of everything after it, `type` the CRC-64-AVRO fingerprint of the
 * column's type tag when the stats were written (its `catalogString`, with the versions of its
 * collations: [[CollatedStrings.typeTag]]). Bounds are exact, typed by the column:
 * booleans, integers (zig-zag varints: byte, short, int, date, year-month interval, long,
 * timestamps, day-time interval), floats and doubles by their IEEE bits (-0.0, infinities and
 * NaN kept), decimals as scale and unscaled two's-complement bytes, strings as their UTF-8 bytes
 * (valid or not), binary as is. Nested stats are [[BinaryNestedCodec]]'s, cast stats
 * [[BinaryCastCodec]]'s.
 *
 * Reading follows the rule of the JSON encoding before it (corrupt stats only cost pruning): stats of another
 * version or failing their checksum fail the whole read (the caller keeps the part as
 * "anything"); a column whose recorded type is not the column's current one keeps its null count
 * alone; a malformed bound, nested or cast field is dropped alone; an unknown field kind is
 * skipped; counts that cannot be true drop what they count ([[StatsConsistency]]).
 */
final class BinaryStatsCodec(private val columnTypes: Map[Int, DataType]) {
  import BinaryStatsCodec._
  import StatsBinary._

  private val fingerprints: Map[Int, Long] = columnTypes.map { case (id, dt) => id -> fingerprint(dt) }

  def encode(stats: PartStats): Array[Byte] = {
    val body = encodeBody(stats.rowCount, stats.bytes, stats.trimmed, columnEntries(stats))
    StatsBinary.encode { out =>
      out.writeInt(Version)
      out.writeFixed(checksum(body, 0))
      out.writeFixed(body)
    }
  }

  /**
   * The stats in `bytes`; fails with an IllegalArgumentException if they are of another version
   * or damaged (see the class doc).
   */
  def decode(bytes: Array[Byte]): PartStats =
    try decodeChecked(bytes)
    catch {
      case e: IllegalArgumentException => throw e
      case NonFatal(e) => throw new IllegalArgumentException(s"damaged binary part stats: $e", e)
    }

  private def decodeChecked(bytes: Array[Byte]): PartStats = {
    val in = decoder(bytes)
    val version = in.readInt()
    require(version == Version, s"binary part stats of version $version, this reader reads $Version")
    val sum = new Array[Byte](ChecksumBytes)
    in.readFixed(sum)
    require(java.util.Arrays.equals(sum, checksum(bytes, varintSize(version) + ChecksumBytes)), "binary part stats fail their checksum")
    val rows = readCount(in, "rows")
    val size = readCount(in, "bytes")
    var trimmed = Set.empty[Int]
    readArray(in)(trimmed += in.readInt())
    val columns = Map.newBuilder[Int, ColumnStats]
    readArray(in) {
      val id = in.readInt()
      val recorded = new Array[Byte](8)
      in.readFixed(recorded)
      val stats = StatsBinary.bytes(in)
      val current = fingerprints.get(id).filter(fp => ByteBuffer.wrap(recorded).getLong == fp)
      attempt(whole(decoder(stats))(readColumn(current.map(_ => columnTypes(id)), _))).foreach(columns += id -> _)
    }
    require(in.isEnd, "binary part stats have trailing bytes")
    StatsConsistency.of(PartStats(rows, size, columns.result(), trimmed))
  }

  /**
   * Each column's stats bytes, as the stats' record carries them (a column's own length-prefixed
   * entry): the bytes the stats were decoded from when they still are, so fields this code does
   * not know survive; else freshly encoded.
   */
  def columnEntries(stats: PartStats): Seq[(Int, Array[Byte])] = stats.columns match {
    case e: EncodedColumns if e.encodedUnder(this) => e.entries
    case columns => columns.toSeq.sortBy(_._1).map { case (id, c) => id -> columnBytes(id, c) }
  }

  /**
   * The stats of column `id` in `length` bytes of `bytes` from `offset`, one entry of
   * [[columnEntries]] written under this codec's types, over `rows` values; None if they are
   * damaged or count what cannot be (the same rule as [[decode]], for one column).
   */
  def decodeColumn(id: Int, bytes: Array[Byte], offset: Int, length: Int, rows: Long): Option[ColumnStats] =
    columnTypes.get(id).flatMap { dt =>
      attempt(whole(DecoderFactory.get().binaryDecoder(bytes, offset, length, null))(readColumn(Some(dt), _)))
        .flatMap(StatsConsistency.column(_, rows))
    }

  /** The type column `id`'s stats are written with, if it is a column of this codec. */
  private[stats] def typeOf(id: Int): Option[DataType] = columnTypes.get(id)

  /** Whether `other` types every column as this codec does (so their column entries agree). */
  private[stats] def sameTypes(other: BinaryStatsCodec): Boolean = (this eq other) || columnTypes == other.columnTypes

  /** Bytes of the encoded stats of one column, as [[size]] adds them up. */
  def entrySize(id: Int, c: ColumnStats): Long = varintSize(id) + 8 + bytesSize(columnBytes(id, c).length)

  /** Bytes of encoded stats whose columns' entries take `entrySizes` bytes (see [[entrySize]]). */
  def size(rows: Long, bytes: Long, entrySizes: Iterable[Long], trimmed: Set[Int]): Long =
    varintSize(Version) + ChecksumBytes + varintSize(rows) + varintSize(bytes) +
      arraySize(trimmed.size, trimmed.iterator.map(id => varintSize(id).toLong).sum) +
      arraySize(entrySizes.size, entrySizes.sum)

  private def columnBytes(id: Int, c: ColumnStats): Array[Byte] = {
    val dt = columnTypes.getOrElse(id, throw new IllegalArgumentException(
      s"Part stats name column id $id, which is not a column of the shard " +
        s"(column ids: ${columnTypes.keys.toSeq.sorted.mkString(", ")})"))
    writeColumn(dt, c, s"column id $id")
  }

  private def encodeBody(rows: Long, bytes: Long, trimmed: Set[Int], columns: Seq[(Int, Array[Byte])]): Array[Byte] =
    StatsBinary.encode { out =>
      out.writeLong(rows)
      out.writeLong(bytes)
      writeArray(out, trimmed.toSeq.sorted)(id => out.writeInt(id))
      writeArray(out, columns) { case (id, stats) =>
        out.writeInt(id)
        out.writeFixed(ByteBuffer.allocate(8).putLong(fingerprints(id)).array())
        out.writeBytes(stats)
      }
    }
}

object BinaryStatsCodec {
  /** The version of the encoding this code writes and reads. */
  val Version = 1

  private val ChecksumBytes = 4

  def apply(schema: ShardSchema): BinaryStatsCodec =
    new BinaryStatsCodec(schema.columns.iterator.map(c => c.id -> c.dataType).toMap)

  /** Whether bounds of this type are encoded (other types keep only their null count). */
  def supportsBounds(dt: DataType): Boolean = dt match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType |
         DateType | TimestampType | TimestampNTZType | BinaryType => true
    case _: DecimalType | _: StringType | _: YearMonthIntervalType | _: DayTimeIntervalType => true
    case _ => false
  }

  private def fingerprint(dt: DataType): Long =
    SchemaNormalization.fingerprint64(CollatedStrings.typeTag(dt).getBytes(StandardCharsets.UTF_8))

  private def checksum(bytes: Array[Byte], from: Int): Array[Byte] = {
    val crc = new CRC32C()
    crc.update(bytes, from, bytes.length - from)
    ByteBuffer.allocate(ChecksumBytes).putInt(crc.getValue.toInt).array()
  }

  /** `read`'s value of the payload `in`, which it must read to its end. */
  private[stats] def whole[T](in: BinaryDecoder)(read: BinaryDecoder => T): T = {
    val v = read(in)
    require(in.isEnd, "a stats field has trailing bytes")
    v
  }

  /**
   * The null count, bounds, nested and cast stats and membership filter of `c`, a column of type
   * `dt` or a value nested in one.
   */
  private[stats] def writeColumn(dt: DataType, c: ColumnStats, what: String): Array[Byte] =
    StatsBinary.encode { out =>
      out.writeLong(c.nullCount)
      StatsBinary.writeFields(out,
        1 -> c.lower.flatMap(bound(what, dt, _)),
        2 -> c.upper.flatMap(bound(what, dt, _)),
        3 -> c.nested.map(BinaryNestedCodec.write(dt, _, what)),
        4 -> c.casts.map(BinaryCastCodec.write),
        5 -> c.members.map(membersField),
        6 -> c.variantParse.map(v => StatsBinary.encode { o => o.writeLong(v.parsed); o.writeString(v.parser) }))
    }

  /**
   * The stats of a column or nested value; `dt` is its type, or None when the stats were
   * recorded under another type (only the null count is then kept).
   */
  private[stats] def readColumn(dt: Option[DataType], in: BinaryDecoder): ColumnStats = {
    val nulls = StatsBinary.readCount(in, "nulls")
    var lower, upper: Option[Any] = None
    var nested: Option[NestedStats] = None
    var casts: Option[CastStats] = None
    var members: Option[MembershipFilter] = None
    var variantParse: Option[VariantParse] = None
    StatsBinary.readFields(in) { (kind, p) =>
      kind match {
        case 1 => lower = dt.flatMap(t => StatsBinary.attempt(whole(p)(readBound(t, _))))
        case 2 => upper = dt.flatMap(t => StatsBinary.attempt(whole(p)(readBound(t, _))))
        case 3 => nested = dt.flatMap(t => StatsBinary.attempt(whole(p)(BinaryNestedCodec.read(t, _))))
        case 4 => casts = dt.collect { case _: StringType => () }
          .flatMap(_ => StatsBinary.attempt(whole(p)(BinaryCastCodec.read)))
        case 5 => members = dt.filter(MembershipFilter.supports)
          .flatMap(_ => StatsBinary.attempt(whole(p)(membersOf)).flatten)
        case 6 => variantParse = dt.collect { case _: StringType => () }.flatMap(_ => StatsBinary.attempt(
          whole(p)(v => VariantParse(StatsBinary.readCount(v, "parsed"), StatsBinary.string(v)))))
        case _ =>
      }
    }
    ColumnStats(nulls, lower, upper, nested, casts, members, variantParse)
  }

  /** The field payload of a membership filter: its [[MembershipCodec]] bytes. */
  private[stats] def membersField(m: MembershipFilter): Array[Byte] =
    StatsBinary.encode(_.writeBytes(MembershipCodec.encode(m)))

  /** The membership filter in a payload of [[MembershipCodec]] bytes; None if they do not decode. */
  private[stats] def membersOf(in: BinaryDecoder): Option[MembershipFilter] =
    MembershipCodec.decode(StatsBinary.bytes(in))

  /** The encoded bound, or None for a type without bounds ([[supportsBounds]]). */
  private[stats] def bound(what: String, dt: DataType, value: Any): Option[Array[Byte]] =
    if (!supportsBounds(dt)) None
    else Some(StatsBinary.encode(writeBound(_, what, dt, value)))

  private[stats] def writeBound(out: Encoder, what: String, dt: DataType, value: Any): Unit =
    (dt, value) match {
      case (BooleanType, b: Boolean) => out.writeBoolean(b)
      case (ByteType, b: Byte) => out.writeInt(b.toInt)
      case (ShortType, s: Short) => out.writeInt(s.toInt)
      case (IntegerType | DateType | _: YearMonthIntervalType, i: Int) => out.writeInt(i)
      case (LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType, l: Long) => out.writeLong(l)
      case (FloatType, f: Float) => out.writeFloat(f)
      case (DoubleType, d: Double) => out.writeDouble(d)
      case (_: DecimalType, d: Decimal) => StatsBinary.writeDecimal(out, d.toJavaBigDecimal)
      case (_: StringType, s: UTF8String) => out.writeBytes(s.getBytes)
      case (BinaryType, b: Array[Byte]) => out.writeBytes(b)
      case _ => throw new IllegalArgumentException(
        s"A stats bound of $what (type ${dt.catalogString}) must be Catalyst's internal " +
          s"value of that type, got ${value.getClass.getName}: $value")
    }

  private[stats] def readBound(dt: DataType, in: BinaryDecoder): Any = {
    def int(min: Int, max: Int): Int = {
      val v = in.readInt()
      require(v >= min && v <= max, s"$v is out of range for ${dt.catalogString}")
      v
    }
    dt match {
      case BooleanType => in.readBoolean()
      case ByteType => int(Byte.MinValue, Byte.MaxValue).toByte
      case ShortType => int(Short.MinValue, Short.MaxValue).toShort
      case IntegerType | DateType | _: YearMonthIntervalType => in.readInt()
      case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType => in.readLong()
      case FloatType => in.readFloat()
      case DoubleType => in.readDouble()
      case _: DecimalType => Decimal(StatsBinary.readDecimal(in))
      case _: StringType => UTF8String.fromBytes(StatsBinary.bytes(in))
      case BinaryType => StatsBinary.bytes(in)
      case _ => throw new IllegalArgumentException(s"no bounds are encoded for ${dt.catalogString}")
    }
  }
}
