package sparkpersist.consolidate

import scala.util.Try

import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.sources
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.interpret.ValueOrdering
import sparkpersist.read.ParquetLiterals
import sparkpersist.schema.ColumnDef
import sparkpersist.util.Prefix

/**
 * Consecutive ranges of the values of one column, in Spark's ascending order with nulls first
 * (the order the merge uses): range 0 holds the nulls and the values below `splits(0)`, range i
 * the values `splits(i - 1) <= v < splits(i)`, the last range the values from the last split
 * on. Every value, null included, lies in exactly one range, and equal values (in Spark's order,
 * so -0.0 with 0.0 and every NaN together) in the same one.
 *
 * @param splits values of the column's type, strictly increasing
 */
final case class KeyRanges(column: ColumnDef, splits: IndexedSeq[Any]) {

  @transient private lazy val ordering: Ordering[Any] = TypeUtils.getInterpretedOrdering(column.dataType)

  def count: Int = splits.size + 1

  /** The range of `value` (a Catalyst internal value of the column's type, or null). */
  def rangeOf(value: Any): Int =
    if (value == null) 0
    else Prefix.length(splits.size)(i => ordering.lteq(splits(i), value)) // how many splits are <= value

  /** Whether a part whose column values lie in `span` may hold a value of range `i`. */
  def overlaps(span: KeySpan, i: Int): Boolean =
    (i == 0 && span.nulls) || (span.values &&
      (i == 0 || KeySpan.atMost(Some(splits(i - 1)), span.upper, ordering)) &&
      (i == count - 1 || span.lower.forall(ordering.lt(_, splits(i)))))

  /**
   * Parquet filters stating that the column's value lies in range `index` (nulls included in
   * range 0), for types whose order in Parquet's statistics is Spark's: integers, dates,
   * timestamps and binary-collated strings. Empty for other types (the task still keeps only
   * its range's rows, after reading). A split Parquet would not see as Spark does (a string of
   * invalid UTF-8, [[ParquetLiterals]]) bounds no filter.
   */
  def parquetFilters(index: Int): Seq[sources.Filter] = {
    val sameOrder = column.dataType match {
      case ByteType | ShortType | IntegerType | LongType | DateType | TimestampType | TimestampNTZType => true
      case s: StringType => s.collationId == StringType.collationId
      case _ => false
    }
    if (!sameOrder || splits.isEmpty || column.name.exists(c => c == '.' || c == '`')) Nil
    else {
      def bound(v: Any) = ParquetLiterals.toScala(v, column.dataType)
      val from = if (index == 0) None else bound(splits(index - 1)).map(sources.GreaterThanOrEqual(column.name, _))
      val until = if (index == count - 1) None else bound(splits(index)).map(sources.LessThan(column.name, _))
      val bounds = (from ++ until).reduceOption[sources.Filter](sources.And(_, _)).toSeq
      if (index == 0) bounds.map(sources.Or(sources.IsNull(column.name), _)) else bounds
    }
  }

  def describe: String = s"${splits.size + 1} key ranges of ${column.name}"
}

/** How many rows of a part have a null and a non-null value in the column, and where those lie. */
final case class KeyMass(span: KeySpan, nullRows: Long, valueRows: Long)

object KeyRanges {

  /** Whether ranges can be drawn on a column of type `dt` (its values have an order and bounds). */
  def supports(dt: DataType): Boolean = ValueOrdering.isRanged(dt)

  /**
   * At most `n` ranges of `column` holding about as many rows each, estimated from the parts'
   * statistics: each part's non-null rows spread evenly between its bounds (by a monotone
   * numeric [[position]] of the values), its nulls below every value. Split points are taken
   * among the parts' own bounds and, for numeric types, also at the estimated quantiles
   * themselves. One range when nothing is known.
   */
  def balanced(column: ColumnDef, parts: Seq[KeyMass], n: Int): KeyRanges = {
    val dt = column.dataType
    val ordering = ValueOrdering.of(dt).getOrElse(
      throw new IllegalArgumentException(s"no key ranges on ${dt.simpleString}"))
    val bounds = parts.iterator.filter(_.span.values).flatMap(m => m.span.lower ++ m.span.upper).toIndexedSeq
    if (n <= 1 || bounds.isEmpty) return KeyRanges(column, IndexedSeq.empty)
    val position = positionOf(dt)
    val (min, max) = (bounds.map(position).min, bounds.map(position).max)
    // Integral values are points one apart: a part's values fill [lower, upper + 1).
    val step = if (isIntegral(dt)) 1.0 else 0.0
    val pieces = parts.map { m =>
      (m.nullRows, m.valueRows, m.span.lower.map(position).getOrElse(min),
        m.span.upper.map(position).getOrElse(max) + step)
    }
    val nulls = pieces.map(_._1).sum
    val total = nulls + pieces.map(_._2).sum
    // Rows below position x: nulls, then each part's values spread over [from, to].
    def below(x: Double): Double = nulls + pieces.iterator.map { case (_, rows, from, to) =>
      if (x <= from) 0.0 else if (x >= to) rows.toDouble else rows * (x - from) / (to - from)
    }.sum
    val targets = (1 until n).map(j => total.toDouble * j / n)
    val quantiles = targets.flatMap { t =>
      var (lo, hi) = (min, max + step)
      (0 until 100).foreach { _ =>
        val mid = lo + (hi - lo) / 2
        if (below(mid) < t) lo = mid else hi = mid
      }
      fromPosition(dt, hi)
    }
    val candidates = (bounds ++ quantiles).sortBy(position)
    val positions = candidates.map(position)
    val chosen = targets.map { t =>
      // `below` grows with the position: binary search for the candidate closest to the target.
      var (lo, hi) = (0, candidates.size - 1)
      while (lo < hi) {
        val mid = (lo + hi) >>> 1
        if (below(positions(mid)) < t) lo = mid + 1 else hi = mid
      }
      val closest = Seq(lo - 1, lo).filter(_ >= 0).minBy(i => math.abs(below(positions(i)) - t))
      candidates(closest)
    }
    val splits = chosen.sorted(ordering).foldLeft(IndexedSeq.empty[Any]) { (acc, v) =>
      if (acc.nonEmpty && ordering.equiv(acc.last, v)) acc else acc :+ v
    }
    KeyRanges(column, splits)
  }

  private val Far = 1e300

  /**
   * A number for each value of `dt`, never decreasing along Spark's order of the type (ties
   * allowed): the value itself for numbers (NaN and infinities far out), the first 7 bytes of a
   * string or binary value as an unsigned number. Only used to estimate where rows lie.
   */
  private[consolidate] def positionOf(dt: DataType): Any => Double = dt match {
    case FloatType => v => finite(v.asInstanceOf[Float].toDouble)
    case DoubleType => v => finite(v.asInstanceOf[Double])
    case _: DecimalType => v => finite(v.asInstanceOf[Decimal].toDouble)
    case BooleanType => v => if (v.asInstanceOf[Boolean]) 1.0 else 0.0
    case _: StringType => v => prefix(v.asInstanceOf[UTF8String].getBytes)
    case BinaryType => v => prefix(v.asInstanceOf[Array[Byte]])
    case _ => v => v.asInstanceOf[Number].doubleValue()
  }

  private def finite(d: Double): Double = if (d.isNaN || d > Far) Far else if (d < -Far) -Far else d

  private def prefix(bytes: Array[Byte]): Double = {
    var v = 0L
    var i = 0
    while (i < 7) {
      v = (v << 8) | (if (i < bytes.length) bytes(i) & 0xffL else 0L)
      i += 1
    }
    v.toDouble
  }

  /** A value of `dt` at about position `x`, for types where positions are the values themselves. */
  private def fromPosition(dt: DataType, x: Double): Option[Any] = dt match {
    case ByteType => Some(clamp(x, Byte.MinValue, Byte.MaxValue).toByte)
    case ShortType => Some(clamp(x, Short.MinValue, Short.MaxValue).toShort)
    case IntegerType | DateType | _: YearMonthIntervalType => Some(clamp(x, Int.MinValue, Int.MaxValue).toInt)
    case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType => Some(math.round(x))
    case FloatType => Some(x.toFloat)
    case DoubleType => Some(x)
    case d: DecimalType => Try(Decimal(BigDecimal(x).setScale(d.scale, BigDecimal.RoundingMode.HALF_UP), d.precision, d.scale)).toOption
    case _ => None
  }

  private def isIntegral(dt: DataType): Boolean = dt match {
    case ByteType | ShortType | IntegerType | LongType | DateType | TimestampType | TimestampNTZType |
         _: YearMonthIntervalType | _: DayTimeIntervalType => true
    case _ => false
  }

  private def clamp(x: Double, lo: Double, hi: Double): Double = math.round(math.max(lo, math.min(hi, x))).toDouble
}
