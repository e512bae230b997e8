package sparkpersist.roundtrip

import scala.util.Random

import org.apache.spark.sql.types._

/**
 * Random shard schemas covering every type the writer accepts: all integral types, float and
 * double, decimals of several precisions (up to 38 digits), strings (UTF8_BINARY and collated,
 * trim-sensitive collations included), binary, boolean, date, timestamp, timestamp_ntz, both ANSI
 * interval types with every field range, VARIANT, and arrays, maps and structs nested up to four
 * deep. Map keys are atomic types Spark can hash and compare (or structs of them).
 *
 * [[refused]] gives the types no shard can hold exactly, which the writer must refuse.
 */
object RandomTypes {

  val Decimals: IndexedSeq[DecimalType] = IndexedSeq(
    DecimalType(1, 0), DecimalType(5, 2), DecimalType(9, 9), DecimalType(10, 0), DecimalType(18, 4),
    DecimalType(19, 0), DecimalType(28, 10), DecimalType(38, 0), DecimalType(38, 18), DecimalType(38, 38))

  val Collations: IndexedSeq[String] =
    IndexedSeq("UTF8_LCASE", "UNICODE", "UNICODE_CI", "UNICODE_CI_AI", "UTF8_BINARY_RTRIM", "UTF8_LCASE_RTRIM")

  private val dayTime: IndexedSeq[DayTimeIntervalType] =
    for (start <- 0 to 3; end <- start to 3) yield DayTimeIntervalType(start.toByte, end.toByte)

  private val yearMonth: IndexedSeq[YearMonthIntervalType] =
    IndexedSeq(YearMonthIntervalType(0, 0), YearMonthIntervalType(0, 1), YearMonthIntervalType(1, 1))

  /** Atomic types a map key may have. */
  private val keyTypes: IndexedSeq[Random => DataType] = IndexedSeq(
    _ => ByteType, _ => ShortType, _ => IntegerType, _ => LongType, _ => FloatType, _ => DoubleType,
    r => Decimals(r.nextInt(Decimals.size)), _ => StringType, _ => BinaryType, _ => BooleanType, _ => DateType,
    _ => TimestampType, _ => TimestampNTZType, r => dayTime(r.nextInt(dayTime.size)),
    r => yearMonth(r.nextInt(yearMonth.size)))

  private val atomicTypes: IndexedSeq[Random => DataType] = keyTypes ++ IndexedSeq(
    _ => StringType, _ => DoubleType, _ => FloatType, r => StringType(Collations(r.nextInt(Collations.size))),
    _ => VariantType)

  /** A shard schema of 1 to `maxColumns` columns, nested at most `maxDepth` levels. */
  def schema(rand: Random, maxColumns: Int, maxDepth: Int): StructType =
    struct(rand, 1 + rand.nextInt(maxColumns), maxDepth, topLevel = true)

  def atomic(rand: Random): DataType = atomicTypes(rand.nextInt(atomicTypes.size))(rand)

  /** A value type: containers while `depth` allows and the dice say so, else atomic. */
  def valueType(rand: Random, depth: Int): DataType =
    if (depth <= 0 || rand.nextInt(3) != 0) atomic(rand)
    else rand.nextInt(3) match {
      case 0 => ArrayType(valueType(rand, depth - 1), containsNull = rand.nextBoolean())
      case 1 => MapType(keyType(rand), valueType(rand, depth - 1), valueContainsNull = rand.nextBoolean())
      case _ => struct(rand, 1 + rand.nextInt(4), depth - 1, topLevel = false)
    }

  private def keyType(rand: Random): DataType =
    if (rand.nextInt(8) == 0) {
      val names = RandomNames.level(rand, 1 + rand.nextInt(2), topLevel = false)
      StructType(names.map(n => StructField(n, keyTypes(rand.nextInt(keyTypes.size))(rand), nullable = rand.nextBoolean())))
    } else keyTypes(rand.nextInt(keyTypes.size))(rand)

  private def struct(rand: Random, n: Int, depth: Int, topLevel: Boolean): StructType =
    StructType(RandomNames.level(rand, n, topLevel).map { name =>
      StructField(name, valueType(rand, depth), nullable = rand.nextInt(4) != 0)
    })

  /**
   * A type Parquet parts cannot hold exactly: TIME (a preview type Spark 4.1 refuses unless
   * `spark.sql.timeType.enabled`), or a struct without fields (Parquet has no empty group).
   */
  def refused(rand: Random): DataType =
    if (rand.nextBoolean()) TimeType(rand.nextInt(TimeType.MICROS_PRECISION + 1)) else new StructType()

  /** The depth of the deepest container in `dt` (0 for an atomic type). */
  def depth(dt: DataType): Int = dt match {
    case s: StructType => 1 + s.fields.map(f => depth(f.dataType)).maxOption.getOrElse(0)
    case a: ArrayType => 1 + depth(a.elementType)
    case m: MapType => 1 + math.max(depth(m.keyType), depth(m.valueType))
    case _ => 0
  }
}
