package sparkpersist.roundtrip

import java.time.{LocalDateTime, ZoneOffset}
import java.time.format.DateTimeFormatter

import scala.util.Random

import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.types._

/**
 * SQL text for an internal value, exact under any session setting: parsing it yields the very
 * value, whatever the session time zone or ANSI mode. Spark's own `Literal.sql` is used where it
 * is exact (integers, booleans, strings with their collation, binary, dates, intervals); floats
 * and doubles go through their shortest round-tripping text (`CAST('-0.0' AS FLOAT)`,
 * `CAST('NaN' AS DOUBLE)`, or `-0.0D`: a plain `-0.0` would parse as a decimal and lose its sign);
 * decimals are `CAST('…' AS DECIMAL(p, s))` or `…BD`; timestamps carry their offset
 * (`TIMESTAMP'… Z'`), since a local time is ambiguous where clocks go back.
 */
object SqlLiterals {

  private val micros = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS")

  /** Types whose values [[render]] can write and whose columns `=` and `<` apply to. */
  def comparable(dt: DataType): Boolean = dt match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | DateType |
         TimestampType | TimestampNTZType | BinaryType | _: DecimalType | _: StringType | _: DayTimeIntervalType |
         _: YearMonthIntervalType => true
    case _ => false
  }

  /** The literal of `v` (internal, of type `dt`); `rand` picks among equivalent spellings. */
  def render(v: Any, dt: DataType, rand: Random): String = (dt, v) match {
    case (_, null) => s"CAST(NULL AS ${dt.sql})"
    case (FloatType, f: Float) => s"CAST('${java.lang.Float.toString(f)}' AS FLOAT)"
    case (DoubleType, d: Double) =>
      if (d.isNaN || d.isInfinite || rand.nextBoolean()) s"CAST('${java.lang.Double.toString(d)}' AS DOUBLE)"
      else java.lang.Double.toString(d) + "D"
    case (d: DecimalType, x: Decimal) =>
      val text = x.toJavaBigDecimal.toPlainString
      if (rand.nextBoolean()) s"CAST('$text' AS DECIMAL(${d.precision}, ${d.scale}))" else text + "BD"
    case (TimestampType, t: Long) => s"TIMESTAMP'${utc(t)}Z'"
    case (TimestampNTZType, t: Long) => s"TIMESTAMP_NTZ'${utc(t)}'"
    case _ => Literal(v, dt).sql
  }

  private def utc(micros: Long): String =
    LocalDateTime.ofInstant(RandomValues.instant(micros), ZoneOffset.UTC).format(this.micros)
}
