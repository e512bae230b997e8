package sparkpersist.roundtrip

import java.time.LocalDate

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * The features a generated shard exercises, by name, so that a run can show the generator is not
 * vacuous: the names and types of its schema, and the edge values that actually occur in its rows
 * (a NaN, a -0.0, an infinity, a 38-digit decimal, a non-BMP character, ...).
 */
object Coverage {

  /** Features every run of a few dozen shards must reach. */
  val Expected: Set[String] = Set(
    "name with space", "name with dot", "name with backtick", "non-ASCII name", "empty field name",
    "nested 3 deep", "array", "map", "struct", "variant", "collated string", "decimal(38)", "binary", "date",
    "timestamp", "timestamp_ntz", "day-time interval", "year-month interval", "byte", "short", "int", "bigint",
    "float NaN", "float -0.0", "float Infinity", "float -Infinity", "double NaN", "double -0.0", "double Infinity",
    "double -Infinity", "38-digit decimal", "non-BMP character", "string past 64 characters", "date in the 1582 gap",
    "timestamp with microseconds", "null")

  private val GapFirst = LocalDate.of(1582, 10, 5).toEpochDay
  private val GapLast = LocalDate.of(1582, 10, 14).toEpochDay

  def of(schema: StructType, rows: Seq[InternalRow]): Set[String] = {
    val found = Set.newBuilder[String]
    def names(struct: StructType, top: Boolean): Unit = struct.fields.foreach { f =>
      if (f.name.contains(" ")) found += "name with space"
      if (f.name.contains(".")) found += "name with dot"
      if (f.name.contains("`")) found += "name with backtick"
      if (f.name.exists(_ > 127)) found += "non-ASCII name"
      if (f.name.isEmpty) found += "empty field name"
      types(f.dataType)
    }
    def types(dt: DataType): Unit = dt match {
      case s: StructType => found += "struct"; names(s, top = false)
      case a: ArrayType => found += "array"; types(a.elementType)
      case m: MapType => found += "map"; types(m.keyType); types(m.valueType)
      case VariantType => found += "variant"
      case s: StringType if s.collationId != StringType.collationId => found += "collated string"
      case d: DecimalType if d.precision == 38 => found += "decimal(38)"
      case BinaryType => found += "binary"
      case DateType => found += "date"
      case TimestampType => found += "timestamp"
      case TimestampNTZType => found += "timestamp_ntz"
      case _: DayTimeIntervalType => found += "day-time interval"
      case _: YearMonthIntervalType => found += "year-month interval"
      case ByteType => found += "byte"
      case ShortType => found += "short"
      case IntegerType => found += "int"
      case LongType => found += "bigint"
      case _ =>
    }
    def edges(v: Any, dt: DataType): Unit = (dt, v) match {
      case (_, null) => found += "null"
      case (FloatType, f: Float) => double("float", f.toDouble)
      case (DoubleType, d: Double) => double("double", d)
      case (_: DecimalType, d: Decimal) => if (d.toJavaBigDecimal.precision() == 38) found += "38-digit decimal"
      case (_: StringType, s: UTF8String) =>
        val text = s.toString
        if (text.codePoints().anyMatch(Character.isSupplementaryCodePoint)) found += "non-BMP character"
        if (s.numChars() > 64) found += "string past 64 characters"
      case (DateType, d: Int) => if (d >= GapFirst && d <= GapLast) found += "date in the 1582 gap"
      case (TimestampType | TimestampNTZType, t: Long) => if (t % 1000 != 0) found += "timestamp with microseconds"
      case (s: StructType, r: InternalRow) =>
        s.fields.indices.foreach(i => edges(if (r.isNullAt(i)) null else r.get(i, s(i).dataType), s(i).dataType))
      case (a: ArrayType, d: ArrayData) => elements(d, a.elementType)
      case (m: MapType, d: MapData) => elements(d.keyArray(), m.keyType); elements(d.valueArray(), m.valueType)
      case _ =>
    }
    def elements(d: ArrayData, dt: DataType): Unit =
      (0 until d.numElements()).foreach(i => edges(if (d.isNullAt(i)) null else d.get(i, dt), dt))
    def double(kind: String, d: Double): Unit =
      if (d.isNaN) found += s"$kind NaN"
      else if (d == Double.PositiveInfinity) found += s"$kind Infinity"
      else if (d == Double.NegativeInfinity) found += s"$kind -Infinity"
      else if (d == 0 && 1 / d < 0) found += s"$kind -0.0"

    names(schema, top = true)
    if (RandomTypes.depth(schema) > 3) found += "nested 3 deep"
    rows.foreach(r => edges(r, schema))
    found.result()
  }
}
