package sparkpersist.roundtrip

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.{UTF8String, VariantVal}

/**
 * The canonical text of an internal (Catalyst) value: two values have the same text iff they are
 * the same value, exactly. Unlike `Row.equals` it tells -0.0 from 0.0 (every NaN is one value,
 * as Spark has it); it compares binary by bytes, decimals by value and scale, strings by their
 * exact bytes (shown as code points when they are valid UTF-8), maps as ordered entry lists, and
 * VARIANT by its value and metadata bytes (with its JSON, for the reader).
 */
object Canonical {

  /** The text of `v` of type `dt`; `signedZeros = false` takes -0.0 as 0.0 (map key identity). */
  def of(v: Any, dt: DataType, signedZeros: Boolean = true): String = {
    val out = new java.lang.StringBuilder
    append(out, v, dt, signedZeros)
    out.toString
  }

  /** The text of the fields of `r` from ordinal `offset` on, which have the types of `schema`'s fields. */
  def row(r: InternalRow, schema: StructType, offset: Int = 0): String = {
    val out = new java.lang.StringBuilder
    fields(out, r, schema, offset, signedZeros = true)
    out.toString
  }

  private def append(out: java.lang.StringBuilder, v: Any, dt: DataType, signedZeros: Boolean): Unit =
    if (v == null) out.append("null")
    else (dt, v) match {
      case (FloatType, f: Float) =>
        out.append(if (f.isNaN) "NaN" else if (f == 0 && !signedZeros) "0.0" else java.lang.Float.toString(f))
      case (DoubleType, d: Double) =>
        out.append(if (d.isNaN) "NaN" else if (d == 0 && !signedZeros) "0.0" else java.lang.Double.toString(d))
      case (_: DecimalType, d: Decimal) => out.append(d.toJavaBigDecimal.toPlainString)
      case (_: StringType, s: UTF8String) => string(out, s)
      case (BinaryType, b: Array[Byte]) => out.append("0x").append(hex(b))
      case (VariantType, x: VariantVal) =>
        out.append("variant(").append(x.toJson(java.time.ZoneOffset.UTC)).append(", 0x").append(hex(x.getValue))
          .append("/0x").append(hex(x.getMetadata)).append(')')
      case (s: StructType, r: InternalRow) => fields(out, r, s, 0, signedZeros)
      case (a: ArrayType, d: ArrayData) =>
        out.append('[')
        elements(out, d, a.elementType, signedZeros)
        out.append(']')
      case (m: MapType, d: MapData) =>
        out.append("map[")
        (0 until d.numElements()).foreach { i =>
          if (i > 0) out.append(", ")
          append(out, d.keyArray().get(i, m.keyType), m.keyType, signedZeros)
          out.append(" -> ")
          append(out, if (d.valueArray().isNullAt(i)) null else d.valueArray().get(i, m.valueType), m.valueType, signedZeros)
        }
        out.append(']')
      case (BooleanType | ByteType | ShortType | IntegerType | LongType | DateType | TimestampType |
            TimestampNTZType | _: DayTimeIntervalType | _: YearMonthIntervalType, _) => out.append(v)
      case _ => throw new IllegalArgumentException(s"no canonical form for ${v.getClass.getName} as ${dt.sql}")
    }

  private def fields(out: java.lang.StringBuilder, r: InternalRow, s: StructType, offset: Int, signedZeros: Boolean): Unit = {
    out.append('{')
    s.fields.indices.foreach { i =>
      if (i > 0) out.append(", ")
      append(out, if (r.isNullAt(offset + i)) null else r.get(offset + i, s(i).dataType), s(i).dataType, signedZeros)
    }
    out.append('}')
  }

  private def elements(out: java.lang.StringBuilder, d: ArrayData, dt: DataType, signedZeros: Boolean): Unit =
    (0 until d.numElements()).foreach { i =>
      if (i > 0) out.append(", ")
      append(out, if (d.isNullAt(i)) null else d.get(i, dt), dt, signedZeros)
    }

  /** A valid UTF-8 string as its code points, quoted and escaped; other bytes in hex. */
  private def string(out: java.lang.StringBuilder, s: UTF8String): Unit = {
    val text = s.toString
    if (UTF8String.fromString(text) != s) out.append("utf8?0x").append(hex(s.getBytes))
    else {
      out.append('"')
      text.codePoints().forEach { cp =>
        if (cp == '"' || cp == '\\') out.append('\\').appendCodePoint(cp)
        else if (Character.isISOControl(cp)) out.append(f"\\u$cp%04x")
        else out.appendCodePoint(cp)
      }
      out.append('"')
    }
  }

  def hex(b: Array[Byte]): String = b.map(x => f"${x & 0xFF}%02x").mkString
}
