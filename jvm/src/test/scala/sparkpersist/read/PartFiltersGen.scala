package sparkpersist.read

import java.time.LocalDate

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen

import sparkpersist.consolidate.KeyRanges

/**
 * Random material for comparing a part read with and without its Parquet filters: rows over a
 * column of every type [[PartFilters]] may hand to Parquet (and of those it keeps out: floating
 * point, a non-binary collation), predicates over them as Spark pushes them, and key ranges of
 * consolidation tasks. Values sit on the edges where Spark and Parquet could see a literal
 * differently: dates and times in and around the days the hybrid Julian calendar lacks
 * (1582-10-05 to 1582-10-14), before year 1 and past 9999, strings of invalid UTF-8 and of
 * non-ASCII characters, -0.0 and NaN, extremes of every width.
 */
object PartFiltersGen {

  val columns: IndexedSeq[StructField] = IndexedSeq(
    "b" -> BooleanType, "y" -> ByteType, "sh" -> ShortType, "i" -> IntegerType, "l" -> LongType,
    "m" -> DecimalType(9, 2), "md" -> DecimalType(18, 4), "ml" -> DecimalType(38, 10),
    "s" -> StringType, "sc" -> StringType("UTF8_LCASE"), "bin" -> BinaryType,
    "d" -> DateType, "ts" -> TimestampType, "ntz" -> TimestampNTZType,
    "ym" -> YearMonthIntervalType(), "dt" -> DayTimeIntervalType(),
    "x" -> DoubleType, "f" -> FloatType
  ).map { case (name, dataType) => StructField(name, dataType) }

  /**
   * One case: a part of `rows` (internal values in [[columns]] order) written `rowsPerGroup` rows
   * to a row group and `rowsPerPage` to a page, predicates over its columns, and key ranges of a
   * few of them ([[KeyRanges]]): a column's ordinal and the ranges' split points.
   */
  final case class Case(rows: Seq[IndexedSeq[Any]], rowsPerGroup: Int, rowsPerPage: Int, predicates: Seq[Expression],
      keyRanges: Seq[(Int, IndexedSeq[Any])])

  def cases(attributes: IndexedSeq[AttributeReference]): Gen[Case] = for {
    n <- Gen.choose(1, 16)
    rows <- Gen.listOfN(n, Gen.sequence[IndexedSeq[Any], Any](columns.map(c => Gen.frequency(1 -> Gen.const(null),
      6 -> value(c.dataType)))))
    rowsPerGroup <- Gen.choose(1, 3)
    rowsPerPage <- Gen.choose(1, 2)
    predicates <- Gen.listOfN(12, predicate(attributes, rows.toIndexedSeq, depth = 2))
    ranged <- Gen.pick(3, columns.indices.filter(i => KeyRanges.supports(columns(i).dataType)))
    keyRanges <- Gen.sequence[Seq[(Int, IndexedSeq[Any])], (Int, IndexedSeq[Any])](
      ranged.map(i => splits(columns(i).dataType, rows.map(_(i))).map(i -> _)))
  } yield Case(rows, rowsPerGroup, rowsPerPage, predicates, keyRanges)

  /** One to three split points of key ranges of a column of `dataType`, strictly increasing in Spark's order. */
  private def splits(dataType: DataType, present: Seq[Any]): Gen[IndexedSeq[Any]] = {
    val ordering = TypeUtils.getInterpretedOrdering(dataType)
    Gen.choose(1, 3).flatMap(k => Gen.listOfN(k, literal(dataType, present))).map(_.sorted(ordering)
      .foldLeft(IndexedSeq.empty[Any])((acc, v) => if (acc.nonEmpty && ordering.equiv(acc.last, v)) acc else acc :+ v))
  }

  /** A value of `dataType` to compare a column with: mostly one of the non-null values `present` in it. */
  private def literal(dataType: DataType, present: Seq[Any]): Gen[Any] = {
    val nonNull = present.filter(_ != null)
    if (nonNull.isEmpty) value(dataType) else Gen.frequency(3 -> Gen.oneOf(nonNull), 2 -> value(dataType))
  }

  /**
   * A predicate over `attributes` as Spark hands it to a scan: comparisons, `IN`, null tests and
   * string matches of a column with literals (mostly values of the rows), and `NOT`, `AND`, `OR` of those.
   */
  private def predicate(attributes: IndexedSeq[AttributeReference], rows: IndexedSeq[IndexedSeq[Any]],
      depth: Int): Gen[Expression] = {
    val leaf = Gen.choose(0, attributes.size - 1).flatMap(i => comparison(attributes(i), rows.map(_(i))))
    if (depth == 0) leaf
    else {
      val inner = predicate(attributes, rows, depth - 1)
      Gen.frequency(6 -> leaf, 1 -> inner.map(Not), 1 -> Gen.zip(inner, inner).map((And.apply _).tupled),
        1 -> Gen.zip(inner, inner).map((Or.apply _).tupled))
    }
  }

  private def comparison(column: AttributeReference, present: Seq[Any]): Gen[Expression] = {
    val dataType = column.dataType
    val literal = this.literal(dataType, present).map(Literal(_, dataType))
    val orNull = Gen.frequency(5 -> literal, 1 -> Gen.const(Literal(null, dataType)))
    val compared = Gen.oneOf[(Expression, Expression) => Expression](EqualTo, LessThan, LessThanOrEqual,
      GreaterThan, GreaterThanOrEqual)
    val strings: Seq[(Int, Gen[Expression])] = dataType match {
      case _: StringType => Seq(2 -> Gen.zip(Gen.oneOf[(Expression, Expression) => Expression](StartsWith, EndsWith,
        Contains), literal).map { case (op, l) => op(column, l) })
      case _ => Nil
    }
    Gen.frequency(Seq(
      6 -> Gen.zip(compared, literal).map { case (op, l) => op(column, l) },
      1 -> orNull.map(EqualNullSafe(column, _)),
      2 -> Gen.choose(1, 3).flatMap(k => Gen.listOfN(k, orNull)).map(In(column, _)),
      1 -> Gen.oneOf(IsNull(column), IsNotNull(column))) ++ strings: _*)
  }

  private val dayMicros = 86400L * 1000000L

  /** Days since the epoch of each date around the Julian–Gregorian gap and at the far ends of the calendar. */
  private val edgeDays: Seq[Long] = Seq(LocalDate.of(1582, 10, 4), LocalDate.of(1582, 10, 10),
    LocalDate.of(1582, 10, 15), LocalDate.of(1, 1, 1), LocalDate.of(0, 12, 31), LocalDate.of(-9999, 1, 1),
    LocalDate.of(1500, 2, 28), LocalDate.of(1000, 3, 1), LocalDate.of(9999, 12, 31), LocalDate.of(10000, 1, 1),
    LocalDate.of(1970, 1, 1)).map(_.toEpochDay)

  /** Days from 1582-10-01 to 1582-10-20: half of them in the gap. */
  private val aroundGap: Gen[Long] = Gen.choose(LocalDate.of(1582, 10, 1).toEpochDay, LocalDate.of(1582, 10, 20).toEpochDay)

  private val days: Gen[Long] = Gen.frequency(3 -> aroundGap, 2 -> Gen.oneOf(edgeDays),
    1 -> Gen.choose(LocalDate.of(-30000, 1, 1).toEpochDay, LocalDate.of(30000, 1, 1).toEpochDay),
    1 -> Gen.choose(LocalDate.of(1900, 1, 1).toEpochDay, LocalDate.of(2100, 1, 1).toEpochDay))

  /** Microseconds since the epoch: a day of [[days]] and a time of day (often midnight), or an extreme. */
  private val micros: Gen[Long] = Gen.frequency(
    6 -> Gen.zip(days, Gen.frequency(2 -> Gen.const(0L), 1 -> Gen.choose(0L, dayMicros - 1))).map { case (d, t) => d * dayMicros + t },
    1 -> Gen.oneOf(Long.MinValue, Long.MaxValue, -1L, 0L))

  /**
   * Pieces of the strings' bytes: ASCII (of both cases), non-ASCII characters of two to four bytes,
   * U+FFFD (what an invalid byte decodes to), and invalid UTF-8: bytes no character starts with,
   * an overlong encoding, a surrogate, truncated sequences.
   */
  private val pieces: Seq[Array[Byte]] = Seq("a", "A", "b", "ab", "\u0000", "\u00e9", "\u00c9", "\u4e2d",
    "\ud834\udd1e", "\uffff", "\ufffd").map(_.getBytes("UTF-8")) ++
    Seq(Seq(0xff), Seq(0xfe), Seq(0x80), Seq(0xc0, 0x80), Seq(0xed, 0xa0, 0x80), Seq(0xe2, 0x82), Seq(0xf4, 0x90, 0x80, 0x80))
      .map(_.map(_.toByte).toArray)

  private val bytes: Gen[Array[Byte]] =
    Gen.choose(0, 3).flatMap(k => Gen.listOfN(k, Gen.oneOf(pieces))).map(_.toArray.flatten)

  private def integral(min: Long, max: Long): Gen[Long] =
    Gen.frequency(2 -> Gen.oneOf(min, min + 1, -1L, 0L, 1L, max - 1, max), 3 -> Gen.choose(-3L, 3L), 2 -> Gen.choose(min, max))

  private val doubles: Gen[Double] = Gen.frequency(
    3 -> Gen.oneOf(-0.0, 0.0, Double.NaN, java.lang.Double.longBitsToDouble(0x7ff8000000000123L),
      Double.PositiveInfinity, Double.NegativeInfinity, Double.MinPositiveValue, Double.MaxValue, -1.5, 1.5),
    1 -> Gen.choose(-1e6, 1e6))

  /** An internal (Catalyst) value of `dataType`, not null. */
  def value(dataType: DataType): Gen[Any] = dataType match {
    case BooleanType => Gen.oneOf(true, false)
    case ByteType => integral(Byte.MinValue, Byte.MaxValue).map(_.toByte)
    case ShortType => integral(Short.MinValue, Short.MaxValue).map(_.toShort)
    case IntegerType => integral(Int.MinValue, Int.MaxValue).map(_.toInt)
    case LongType => integral(Long.MinValue, Long.MaxValue)
    case d: DecimalType =>
      val most = BigInt(10).pow(d.precision) - 1
      Gen.frequency(1 -> Gen.oneOf(-most, most, BigInt(0)), 3 -> Gen.choose(-1000L, 1000L).map(BigInt(_)),
        2 -> Gen.choose(Long.MinValue, Long.MaxValue).map(l => BigInt(l) % most))
        .map(unscaled => Decimal(BigDecimal(unscaled, d.scale), d.precision, d.scale))
    case s: StringType if s.collationId != StringType.collationId =>
      Gen.oneOf("a", "A", "ab", "AB", "b", "\u00e9", "\u00c9").map(UTF8String.fromString)
    case _: StringType => bytes.map(UTF8String.fromBytes)
    case BinaryType => bytes
    case DateType => days.map(_.toInt)
    case TimestampType | TimestampNTZType => micros
    case _: YearMonthIntervalType => integral(Int.MinValue, Int.MaxValue).map(_.toInt)
    case _: DayTimeIntervalType => micros
    case DoubleType => doubles
    case FloatType => doubles.map(_.toFloat)
  }
}
