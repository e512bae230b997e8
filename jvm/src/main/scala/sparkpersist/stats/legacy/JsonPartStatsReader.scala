package sparkpersist.stats.legacy

import java.nio.charset.StandardCharsets
import java.util.Base64

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.JsonNode
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.codec.{Check, JsonReader}
import sparkpersist.schema.ShardSchema
import sparkpersist.stats.{CollatedStrings, ColumnStats, MembershipCodec, MembershipFilter, PartStats, StatsConsistency, VariantParse}

/**
 * Reads the legacy JSON encoding of [[PartStats]] (read-only: see the package), exact for every
 * supported type:
 *
 *  - boolean: JSON boolean; byte, short, int, date (days), year-month interval: JSON integer;
 *    long, timestamp, timestamp_ntz (micros), day-time interval: JSON integer (64-bit);
 *  - float, double: the Java string form (`Float.toString`, `Double.toString`), which parses
 *    back to the same value and bits, including -0.0, Infinity and -Infinity (a NaN comes back
 *    as the canonical NaN: Spark treats every NaN as one value, the largest);
 *  - decimal: the plain string of the value with its scale (`"12.50"`);
 *  - string: the JSON string when the bytes are valid UTF-8 (exactly the same bytes come back,
 *    so byte order is kept), else `{"utf8Bytes": base64}` (a truncated bound may end mid-character);
 *  - binary: base64.
 *
 * Nested stats (struct fields, array elements, map entries, JSON documents) follow under
 * `nested`, read by [[JsonNestedStatsReader]] and typed by the column's recorded type; a string
 * column's [[sparkpersist.stats.CastStats]] under `casts` ([[JsonCastStatsReader]]), absent in stats written before them;
 * a JSON text column's [[VariantParse]] under `variantParse` (`{"parsed": 96, "parser": "..."}`).
 *
 * Each column recorded its type (`catalogString`, with the versions of its collations:
 * [[CollatedStrings.typeTag]]). A column whose type is not listed above, or
 * whose recorded type differs from the shard's current type, keeps its null count and loses its
 * bounds: "unbounded" is always sound, a misread bound never is. Malformed bounds are dropped the
 * same way, and counts that cannot be true drop what they count ([[StatsConsistency]]): corrupt
 * stats only cost pruning, never answers.
 */
final class JsonPartStatsReader(columnTypes: Map[Int, DataType]) {
  import JsonPartStatsReader._

  /** The recorded type of each column; computed once, as every part's stats are checked against it. */
  private val typeTags: Map[Int, String] = columnTypes.map { case (id, dt) => id -> CollatedStrings.typeTag(dt) }

  def decode(json: String): PartStats = JsonReader.read(json.getBytes(StandardCharsets.UTF_8))(read)

  /**
   * Reads the stats object at `r`. A damaged column loses its bounds, or its stats if even its
   * null count is unreadable; a damaged `rows`, `bytes` or `trimmed` fails the whole read.
   */
  def read(r: JsonReader): PartStats = {
    var rows, bytes: Option[Long] = None
    val columns = Map.newBuilder[Int, ColumnStats]
    var trimmed = Set.empty[Int]
    r.readObject("part stats") {
      case "rows" => rows = Some(r.long("rows"))
      case "bytes" => bytes = Some(r.long("bytes"))
      case "columns" => r.readObject("columns") { key =>
        r.recovering(readColumn(key, r)).foreach(columns += _)
      }
      case "trimmed" => trimmed = r.readArray("trimmed")(r.int("a trimmed column id")).toSet
      case _ => r.skip()
    }
    val rowCount = JsonReader.required(rows, "rows")
    Check.arg(rowCount >= 0, s"rows must not be negative, got $rowCount")
    StatsConsistency.of(PartStats(rowCount, JsonReader.required(bytes, "bytes"), columns.result(), trimmed))
  }

  private def readColumn(key: String, r: JsonReader): (Int, ColumnStats) = {
    val id = key.toInt
    var nulls: Option[Long] = None
    var tag: Option[String] = None
    var lower, upper, nested, casts, members, variantParse: Option[JsonNode] = None
    r.readObject("column stats") {
      case "nulls" => nulls = Some(r.long("nulls"))
      case "type" => tag = Some(r.string("type"))
      case "lower" => lower = Some(r.tree())
      case "upper" => upper = Some(r.tree())
      case "nested" => nested = Some(r.tree())
      case "casts" => casts = Some(r.tree())
      case "members" => members = Some(r.tree())
      case "variantParse" => variantParse = Some(r.tree())
      case _ => r.skip()
    }
    val recordedType = columnTypes.get(id).filter(_ => tag.isDefined && typeTags.get(id) == tag)
    def bounded(v: Option[JsonNode]): Option[Any] =
      for (dt <- recordedType; node <- v; b <- bound(dt, node)) yield b
    id -> ColumnStats(JsonReader.required(nulls, "nulls"), bounded(lower), bounded(upper),
      for (dt <- recordedType; node <- nested; n <- JsonNestedStatsReader.read(dt, node)) yield n,
      for (dt <- recordedType if dt.isInstanceOf[StringType]; node <- casts; c <- JsonCastStatsReader.read(node)) yield c,
      for (dt <- recordedType if MembershipFilter.supports(dt); node <- members if node.isTextual;
           bytes <- scala.util.Try(Base64.getDecoder.decode(node.textValue())).toOption;
           m <- MembershipCodec.decode(bytes)) yield m,
      for (dt <- recordedType if dt.isInstanceOf[StringType]; node <- variantParse;
           parsed <- Option(node.get("parsed")) if parsed.isIntegralNumber && parsed.canConvertToLong;
           parser <- Option(node.get("parser")) if parser.isTextual)
        yield VariantParse(parsed.longValue(), parser.textValue()))
  }
}

object JsonPartStatsReader {
  def apply(schema: ShardSchema): JsonPartStatsReader =
    new JsonPartStatsReader(schema.columns.iterator.map(c => c.id -> c.dataType).toMap)

  /** The bound a JSON value encodes, or None if it is not a well-formed bound of `dt`. */
  private[legacy] def bound(dt: DataType, v: JsonNode): Option[Any] = {
    def text: Option[String] = if (v.isTextual) Some(v.textValue()) else None
    def integral(min: Long, max: Long): Option[Long] =
      if (v.isIntegralNumber && v.canConvertToLong && v.longValue() >= min && v.longValue() <= max) {
        Some(v.longValue())
      } else None
    try dt match {
      case BooleanType => if (v.isBoolean) Some(v.booleanValue()) else None
      case ByteType => integral(Byte.MinValue, Byte.MaxValue).map(_.toByte)
      case ShortType => integral(Short.MinValue, Short.MaxValue).map(_.toShort)
      case IntegerType | DateType | _: YearMonthIntervalType =>
        integral(Int.MinValue, Int.MaxValue).map(_.toInt)
      case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType =>
        integral(Long.MinValue, Long.MaxValue)
      case FloatType => text.map(java.lang.Float.parseFloat)
      case DoubleType => text.map(java.lang.Double.parseDouble)
      case _: DecimalType => text.map(s => Decimal(new java.math.BigDecimal(s)))
      case _: StringType =>
        if (v.isTextual) Some(UTF8String.fromString(v.textValue()))
        else Option(v.get("utf8Bytes")).filter(_.isTextual)
          .map(b => UTF8String.fromBytes(Base64.getDecoder.decode(b.textValue())))
      case BinaryType => text.map(s => Base64.getDecoder.decode(s))
      case _ => None
    } catch {
      case NonFatal(_) => None
    }
  }
}
