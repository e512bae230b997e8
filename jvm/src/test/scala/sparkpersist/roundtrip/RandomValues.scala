package sparkpersist.roundtrip

import java.lang.Double.longBitsToDouble
import java.lang.Float.intBitsToFloat
import java.time.{Duration, Instant, LocalDate, LocalDateTime, Period, ZoneOffset}

import scala.collection.immutable.ListMap
import scala.collection.mutable
import scala.util.Random

import org.apache.spark.sql.{RandomDataGenerator, Row}
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.types._

/**
 * Random values (external Spark types, as `createDataFrame` takes them) for the types of
 * [[RandomTypes]], drawn from one `Random`, so a shard's rows follow from its seed.
 *
 * Atomic values come from Spark's own [[RandomDataGenerator]] (biased towards each type's extremes)
 * half of the time and from this object's edge cases otherwise, because RandomDataGenerator leaves
 * out what the write boundary must keep exact: NaNs with payloads, 38-digit decimals, non-BMP
 * strings and strings past the stats' bound length, collated strings, timestamps with
 * microseconds, dates and times in the Julian-Gregorian gap (1582-10-05 to 1582-10-14) and before
 * it, and VARIANT ([[RandomVariants]]). Containers are built here, small (a few elements per
 * array or map), since RandomDataGenerator's up to 128 elements per level would explode three
 * levels down. Map keys are distinct as Spark sees them (-0.0 = 0.0, every NaN alike).
 *
 * Each nullable column, field, element or map value gets its own null rate: never, 10%, 30% or
 * always null, so that some parts hold only nulls.
 */
final class RandomValues(rand: Random) {
  private val sparkGenerators = mutable.Map.empty[DataType, () => Any]

  /** A generator of values of `dt`, null at a rate of its own if `nullable`. */
  def of(dt: DataType, nullable: Boolean): () => Any = {
    val value = nonNull(dt)
    if (!nullable) value
    else {
      val rate = IndexedSeq(0.0, 0.1, 0.1, 0.3, 1.0)(rand.nextInt(5))
      () => if (rand.nextDouble() < rate) null else value()
    }
  }

  /** A generator of rows of `schema`. */
  def rows(schema: StructType): () => Row = {
    val fields = schema.fields.map(f => of(f.dataType, f.nullable))
    () => Row.fromSeq(fields.toSeq.map(_()))
  }

  private def nonNull(dt: DataType): () => Any = dt match {
    case s: StructType => rows(s)
    case a: ArrayType =>
      val element = of(a.elementType, a.containsNull)
      () => Seq.fill(RandomValues.size(rand))(element())
    case m: MapType =>
      val key = of(m.keyType, nullable = false)
      val value = of(m.valueType, m.valueContainsNull)
      val identity = RandomValues.keyIdentity(m.keyType)
      () => {
        val seen = mutable.HashSet.empty[String]
        val keys = Seq.fill(RandomValues.size(rand))(key()).filter(k => seen.add(identity(k)))
        ListMap(keys.map(_ -> value()): _*)
      }
    case _: StringType => () => RandomValues.string(rand)
    case BinaryType => () => RandomValues.binary(rand)
    case VariantType => () => RandomValues.variant(rand)
    case FloatType => either(spark(dt), () => RandomValues.float(rand))
    case DoubleType => either(spark(dt), () => RandomValues.double(rand))
    case d: DecimalType => either(spark(dt), () => RandomValues.decimal(rand, d.precision, d.scale).bigDecimal)
    case DateType => either(spark(dt), () => LocalDate.ofEpochDay(RandomValues.days(rand)))
    // RandomDataGenerator's timestamps depend on the JVM's time zone: a seed would not give the same shard everywhere.
    case TimestampType => () => RandomValues.instant(RandomValues.micros(rand))
    case TimestampNTZType => either(spark(dt), () => LocalDateTime.ofInstant(RandomValues.instant(RandomValues.micros(rand)), ZoneOffset.UTC))
    case t: DayTimeIntervalType => either(spark(dt), () => RandomValues.dayTime(rand, t))
    case t: YearMonthIntervalType => either(spark(dt), () => RandomValues.yearMonth(rand, t))
    case _ => spark(dt)
  }

  private def either(a: () => Any, b: () => Any): () => Any = () => if (rand.nextBoolean()) a() else b()

  private def spark(dt: DataType): () => Any = sparkGenerators.getOrElseUpdate(dt,
    RandomDataGenerator.forType(dt, nullable = false, rand).getOrElse(
      throw new IllegalArgumentException(s"RandomDataGenerator has no values of ${dt.sql}")))
}

/** Edge cases of each type, shared with [[RandomVariants]]. */
object RandomValues {

  /** Elements of an array or entries of a map: mostly 0 to 3, sometimes up to 6. */
  def size(rand: Random): Int = if (rand.nextInt(8) == 0) rand.nextInt(7) else rand.nextInt(4)

  private val MaxCodePoint = new String(Character.toChars(Character.MAX_CODE_POINT))

  private val pieces: IndexedSeq[String] = IndexedSeq(
    "a", "b", "Z", "abc", " ", "  ", "é", "e\u0301", "ß", "SS", "İ", "ı", "\u212A", "k", "Σ", "σ", "ς", "日本",
    "\uD83D\uDE00", "\uD83E\uDDEA", "\uD7FF", "\uE000", "\uFFFF", MaxCodePoint, "\u0000", "\n", "'", "\\", "%", "_")

  /**
   * Empty strings, short mixes of the pieces above (non-BMP characters, case folding traps,
   * combining marks, U+D7FF/U+E000 around the surrogates, U+10FFFF), long strings past the
   * default 64-character bound, and long runs of U+10FFFF, which have no truncated upper bound.
   */
  def string(rand: Random): String = rand.nextInt(12) match {
    case 0 => ""
    case 1 => Iterator.fill(60 + rand.nextInt(60))(pieces(rand.nextInt(pieces.size))).mkString
    case 2 => MaxCodePoint * (60 + rand.nextInt(20)) + (if (rand.nextBoolean()) "" else "a")
    case 3 => "shared prefix " * (4 + rand.nextInt(4)) + pieces(rand.nextInt(pieces.size))
    case _ => Iterator.fill(1 + rand.nextInt(4))(pieces(rand.nextInt(pieces.size))).mkString
  }

  private val bytes: IndexedSeq[Byte] = IndexedSeq(0, 1, 0x7F, 0x80, 0xFE, 0xFF).map(_.toByte)

  /** Empty, short, long (past the bound) and long all-0xFF (no truncated upper bound) binaries. */
  def binary(rand: Random): Array[Byte] = rand.nextInt(8) match {
    case 0 => Array.emptyByteArray
    case 1 => Array.fill(65 + rand.nextInt(40))(0xFF.toByte)
    case 2 => val b = new Array[Byte](65 + rand.nextInt(60)); rand.nextBytes(b); b
    case _ => Array.fill(1 + rand.nextInt(8))(if (rand.nextBoolean()) bytes(rand.nextInt(bytes.size)) else rand.nextInt().toByte)
  }

  private val doubles: IndexedSeq[Double] = IndexedSeq(Double.NaN, longBitsToDouble(0x7ff8000000000001L),
    longBitsToDouble(0xfff8000000000000L), Double.PositiveInfinity, Double.NegativeInfinity, -0.0, 0.0,
    Double.MinPositiveValue, -Double.MinPositiveValue, java.lang.Double.MIN_NORMAL, Double.MaxValue, Double.MinValue,
    1.0, -1.0, 0.1)

  def double(rand: Random): Double = rand.nextInt(3) match {
    case 0 => doubles(rand.nextInt(doubles.size))
    case 1 => longBitsToDouble(rand.nextLong())
    case _ => (rand.nextInt(2001) - 1000) / 8.0
  }

  private val floats: IndexedSeq[Float] = IndexedSeq(Float.NaN, intBitsToFloat(0x7fc00001), intBitsToFloat(0xffc00000),
    Float.PositiveInfinity, Float.NegativeInfinity, -0.0f, 0.0f, Float.MinPositiveValue, java.lang.Float.MIN_NORMAL,
    Float.MaxValue, Float.MinValue, 1.0f, -1.0f, 0.1f)

  def float(rand: Random): Float = rand.nextInt(3) match {
    case 0 => floats(rand.nextInt(floats.size))
    case 1 => intBitsToFloat(rand.nextInt())
    case _ => (rand.nextInt(2001) - 1000) / 8.0f
  }

  /** A decimal of at most `precision` digits with `scale` (`<= precision`): extremes, zero, ±1 ulp, or any. */
  def decimal(rand: Random, precision: Int, scale: Int): BigDecimal = {
    val max = BigInt(10).pow(precision) - 1
    val unscaled = rand.nextInt(5) match {
      case 0 => max
      case 1 => -max
      case 2 => BigInt(rand.nextInt(3) - 1)
      case _ => (BigInt(precision * 4, new java.util.Random(rand.nextLong())) mod (max + 1)) * (if (rand.nextBoolean()) 1 else -1)
    }
    BigDecimal(unscaled, scale)
  }

  private val FirstDay = LocalDate.of(1, 1, 1).toEpochDay
  private val LastDay = LocalDate.of(9999, 12, 31).toEpochDay
  private val GapFirst = LocalDate.of(1582, 10, 5).toEpochDay

  /**
   * Days since the epoch: the ten days of the Julian-Gregorian gap (which a Julian calendar does
   * not have), days before the gap, the first and last day of years 1 to 9999, or any day between.
   */
  def days(rand: Random): Int = (rand.nextInt(5) match {
    case 0 => GapFirst + rand.nextInt(10)
    case 1 => FirstDay + (rand.nextDouble() * (GapFirst - FirstDay)).toLong
    case 2 => IndexedSeq(FirstDay, LastDay, 0L, -1L)(rand.nextInt(4))
    case _ => FirstDay + (rand.nextDouble() * (LastDay - FirstDay)).toLong
  }).toInt

  private val MicrosPerDay = 86400L * 1000000L

  /**
   * Microseconds since the epoch: a day as [[days]] gives, at its first or last microsecond or any
   * microsecond of it.
   */
  def micros(rand: Random): Long = days(rand) * MicrosPerDay + (rand.nextInt(4) match {
    case 0 => 0L
    case 1 => MicrosPerDay - 1
    case _ => (rand.nextDouble() * MicrosPerDay).toLong
  })

  def instant(micros: Long): Instant = Instant.ofEpochSecond(Math.floorDiv(micros, 1000000L), Math.floorMod(micros, 1000000L) * 1000L)

  private val dayTimeUnits = IndexedSeq(MicrosPerDay, 3600L * 1000000L, 60L * 1000000L, 1L)

  /** A day-time interval whose smallest field is the type's end field. */
  def dayTime(rand: Random, t: DayTimeIntervalType): Duration = {
    val unit = dayTimeUnits(t.endField)
    val magnitude = if (rand.nextBoolean()) rand.nextInt(1000).toLong else Math.floorMod(rand.nextLong(), Long.MaxValue / 2 / unit)
    Duration.ofNanos(0).plus(magnitude * unit * (if (rand.nextBoolean()) 1 else -1), java.time.temporal.ChronoUnit.MICROS)
  }

  /** A year-month interval; whole years when the type has no month field. */
  def yearMonth(rand: Random, t: YearMonthIntervalType): Period = {
    val months = if (rand.nextBoolean()) rand.nextInt(200) - 100 else rand.nextInt(Int.MaxValue / 12) * (if (rand.nextBoolean()) 1 else -1)
    val whole = if (t.endField == YearMonthIntervalType.YEAR) months / 12 * 12 else months
    Period.ofMonths(whole).normalized()
  }

  def variant(rand: Random): Any = RandomVariants.value(rand)

  /**
   * What makes two map keys of `keyType` one key to Spark: their internal value, with -0.0 taken
   * as 0.0 and every NaN as one.
   */
  def keyIdentity(keyType: DataType): Any => String = {
    val toCatalyst = CatalystTypeConverters.createToCatalystConverter(keyType)
    k => Canonical.of(toCatalyst(k), keyType, signedZeros = false)
  }
}
