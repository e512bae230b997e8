package sparkpersist.roundtrip

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData, TypeUtils}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.stats.{ArrayStats, ColumnStats, MapStats, StructStats}

/**
 * Checks the stats of one column (or nested value) of one part against what Spark recomputes from
 * the values the part file holds, as [[sparkpersist.stats.ColumnStats]] and the collectors
 * document them, from the documentation rather than from the collectors' code:
 *
 *  - the null count is exact, always (the stats budget never drops counts);
 *  - bounds exist for boolean, integral, float, double, decimal, date, timestamp, timestamp_ntz,
 *    string and binary values, and nowhere else; they are absent when every value is
 *    null, and otherwise equal the minimum and maximum in Spark's order, except that a zero minimum
 *    is -0.0 and a zero maximum 0.0, and that strings (in code points) and binary (in bytes) are
 *    cut to `boundChars`: the lower bound to its prefix, the upper bound to its prefix with the
 *    last element that can be incremented incremented (skipping the surrogates) and the rest
 *    dropped, or no upper bound when none can be (UTF8_BINARY); strings of other collations are bounded in the
 *    collation's order (Spark's for the type) by a value equal to the minimum (maximum) there, of at
 *    most `boundChars` code points, or not at all when one of the values equal to it is longer;
 *  - nested stats: each struct field's stats over every row (null where the struct is), and for
 *    arrays and maps the fewest and most entries of the non-null ones, their total, and the
 *    stats of all elements, keys and values;
 *  - in a column the budget `trimmed`, string and binary bounds may be cut shorter (any prefix
 *    below, any incremented prefix or nothing above), and nested pieces or nested bounds may be
 *    missing; nothing else may differ.
 *
 * VARIANT stats (JSON documents) are not recounted here.
 */
final class StatsRecount(boundChars: Int) {
  private val orderings = mutable.Map.empty[DataType, Ordering[Any]]
  private var count = 0

  /** How many stats (columns and nested values) were checked so far. */
  def checked: Int = count

  /**
   * The differences between `actual` and the stats of `values` (internal values of `dt`, nulls
   * included), each starting with `path`.
   */
  def compare(path: String, dt: DataType, values: Seq[Any], actual: ColumnStats, trimmed: Boolean): Seq[String] = {
    count += 1
    val problems = Seq.newBuilder[String]
    def problem(what: String): Unit = problems += s"$path: $what"
    val present = values.filter(_ != null)
    if (actual.nullCount != values.size - present.size) {
      problem(s"null count ${actual.nullCount}, but ${values.size - present.size} of ${values.size} values are null")
    }
    if (!StatsRecount.bounded(dt) || present.isEmpty) {
      if (actual.lower.isDefined || actual.upper.isDefined) {
        problem(s"bounds ${show(actual.lower, dt)}..${show(actual.upper, dt)}, but none are due (${present.size} values of ${dt.sql})")
      }
    } else {
      val ord = orderings.getOrElseUpdate(dt, TypeUtils.getInterpretedOrdering(dt))
      val (min, max) = (present.min(ord), present.max(ord))
      bounds(dt, ord, present, min, max, actual, trimmed).foreach(problem)
    }
    problems ++= nested(path, dt, values, actual, trimmed)
    problems.result()
  }

  private def bounds(dt: DataType, ord: Ordering[Any], present: Seq[Any], min: Any, max: Any, actual: ColumnStats,
      trimmed: Boolean): Seq[String] = {
    def expected(what: String, exp: Any) = s"$what ${show(Some(exp), dt)}"
    def exact(side: String, bound: Option[Any], value: Any): Option[String] = bound match {
      case Some(b) if StatsRecount.isValueOf(b, dt) && ord.equiv(b, value) => None
      case None if trimmed => None
      case b => Some(s"$side bound ${show(b, dt)}, ${expected("expected", value)}")
    }
    def chars(v: Any) = v.asInstanceOf[UTF8String].numChars()
    def collated(side: String, bound: Option[Any], value: Any): Option[String] = bound match {
      case Some(b) if StatsRecount.isValueOf(b, dt) && ord.equiv(b, value) && chars(b) <= boundChars => None
      case None if trimmed || present.exists(p => ord.equiv(p, value) && chars(p) > boundChars) => None
      case b => Some(s"$side bound ${show(b, dt)}, ${expected("expected one equal to", value)} of at most $boundChars code points")
    }
    dt match {
      case s: StringType if s.collationId != StringType.collationId =>
        collated("lower", actual.lower, min).toSeq ++ collated("upper", actual.upper, max)
      case s: StringType if s.collationId == StringType.collationId =>
        def codePoints(v: Any) = v.asInstanceOf[UTF8String].toString.codePoints().toArray.toIndexedSeq
        prefixBounds(actual.lower.map(codePoints), actual.upper.map(codePoints), codePoints(min), codePoints(max),
          Character.MAX_CODE_POINT, StatsRecount.nextCodePoint, trimmed)
          .map(_ + s" (min ${show(Some(min), dt)}, max ${show(Some(max), dt)})")
      case BinaryType =>
        def unsigned(v: Any) = v.asInstanceOf[Array[Byte]].toIndexedSeq.map(_ & 0xFF)
        prefixBounds(actual.lower.map(unsigned), actual.upper.map(unsigned), unsigned(min), unsigned(max), 0xFF, _ + 1, trimmed)
          .map(_ + s" (min ${show(Some(min), dt)}, max ${show(Some(max), dt)})")
      case FloatType | DoubleType =>
        def isZero(v: Any) = v match { case d: Double => d == 0; case f: Float => f == 0; case _ => false }
        def signBit(v: Any) = v match {
          case d: Double => java.lang.Double.doubleToRawLongBits(d) < 0
          case f: Float => java.lang.Float.floatToRawIntBits(f) < 0
          case _ => false
        }
        exact("lower", actual.lower, min).orElse(exact("upper", actual.upper, max)).toSeq ++
          (if (isZero(min) && actual.lower.exists(b => isZero(b) && !signBit(b))) Seq("a zero minimum must be the lower bound -0.0") else Nil) ++
          (if (isZero(max) && actual.upper.exists(b => isZero(b) && signBit(b))) Seq("a zero maximum must be the upper bound 0.0") else Nil)
      case _ => exact("lower", actual.lower, min).toSeq ++ exact("upper", actual.upper, max)
    }
  }

  /**
   * String (code points) or binary (unsigned bytes) bounds as documented by
   * [[sparkpersist.stats.Bounds]]; `top` is the largest element, `next` its successor function.
   */
  private def prefixBounds(lower: Option[IndexedSeq[Int]], upper: Option[IndexedSeq[Int]], min: IndexedSeq[Int],
      max: IndexedSeq[Int], top: Int, next: Int => Int, trimmed: Boolean): Seq[String] = {
    val problems = Seq.newBuilder[String]
    val n = boundChars
    lower match {
      case Some(l) if l == min.take(n) =>
      case Some(l) if trimmed && min.startsWith(l) && l.size <= n =>
      case None if trimmed =>
      case l => problems += s"lower bound ${l.map(show)} is not the ${n}-element prefix of the minimum"
    }
    // The tight upper bound: the maximum if it fits, else its prefix with the last element below `top` incremented.
    val tight: Option[IndexedSeq[Int]] =
      if (max.size <= n) Some(max)
      else {
        val last = max.take(n).lastIndexWhere(_ != top)
        if (last < 0) None else Some(max.take(last) :+ next(max(last)))
      }
    def incrementedPrefix(u: IndexedSeq[Int]) =
      u.nonEmpty && u.size <= n && max.startsWith(u.init) && (max.size < u.size || u.last > max(u.size - 1))
    upper match {
      case u if u == tight =>
      case Some(u) if trimmed && (u == max || incrementedPrefix(u)) =>
      case None if trimmed =>
      case u => problems += s"upper bound ${u.map(show)}, expected ${tight.map(show)}"
    }
    problems.result()
  }

  private def nested(path: String, dt: DataType, values: Seq[Any], actual: ColumnStats, trimmed: Boolean): Seq[String] =
    (dt, actual.nested) match {
      case (s: StructType, Some(StructStats(fields))) =>
        s.fields.toSeq.zipWithIndex.flatMap { case (f, i) =>
          fields.get(f.name) match {
            case Some(c) =>
              val inner = values.map(v => if (v == null) null else v.asInstanceOf[InternalRow].get(i, f.dataType))
              compare(s"$path.${f.name}", f.dataType, inner, c, trimmed)
            case None if trimmed => Nil
            case None => Seq(s"$path: no stats for field '${f.name}'")
          }
        }
      case (a: ArrayType, Some(ArrayStats(minSize, maxSize, total, elements))) =>
        val arrays = values.filter(_ != null).map(_.asInstanceOf[ArrayData])
        sizes(path, arrays.map(_.numElements()), minSize, maxSize, total) ++
          inside(s"$path[]", a.elementType, arrays.flatMap(d => items(d, a.elementType)), elements, trimmed)
      case (m: MapType, Some(MapStats(minSize, maxSize, total, keys, mapValues))) =>
        val maps = values.filter(_ != null).map(_.asInstanceOf[MapData])
        sizes(path, maps.map(_.numElements()), minSize, maxSize, total) ++
          inside(s"$path.keys", m.keyType, maps.flatMap(d => items(d.keyArray(), m.keyType)), keys, trimmed) ++
          inside(s"$path.values", m.valueType, maps.flatMap(d => items(d.valueArray(), m.valueType)), mapValues, trimmed)
      case (VariantType, _) => Nil
      case (_: StructType | _: ArrayType | _: MapType, None) if trimmed => Nil
      case (_: StructType | _: ArrayType | _: MapType, n) => Seq(s"$path: nested stats $n do not describe ${dt.sql}")
      case (_, None) => Nil
      case (_, Some(n)) => Seq(s"$path: unexpected nested stats $n for ${dt.sql}")
    }

  private def inside(path: String, dt: DataType, values: Seq[Any], stats: Option[ColumnStats], trimmed: Boolean): Seq[String] =
    stats match {
      case Some(c) => compare(path, dt, values, c, trimmed)
      case None if trimmed => Nil
      case None => Seq(s"$path: no stats")
    }

  private def sizes(path: String, sizes: Seq[Int], minSize: Int, maxSize: Int, total: Long): Seq[String] = {
    val expected = (if (sizes.isEmpty) 0 else sizes.min, if (sizes.isEmpty) 0 else sizes.max, sizes.map(_.toLong).sum)
    if ((minSize, maxSize, total) == expected) Nil
    else Seq(s"$path: sizes $minSize..$maxSize with $total in all, expected ${expected._1}..${expected._2} with ${expected._3}")
  }

  private def items(d: ArrayData, dt: DataType): Seq[Any] =
    (0 until d.numElements()).map(i => if (d.isNullAt(i)) null else d.get(i, dt))

  private def show(elements: IndexedSeq[Int]): String = elements.mkString("<", ",", ">")

  private def show(bound: Option[Any], dt: DataType): String = bound.fold("(none)")(b => Canonical.of(b, dt))
}

object StatsRecount {
  /** Types whose stats carry bounds (see [[sparkpersist.stats.StatsCollector.forType]]). */
  def bounded(dt: DataType): Boolean = dt match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | DateType |
         TimestampType | TimestampNTZType | BinaryType | _: DecimalType => true
    case _: StringType => true
    case _ => false
  }

  /** Whether `v` is an internal value of `dt`, so that Spark's ordering of `dt` may compare it. */
  private def isValueOf(v: Any, dt: DataType): Boolean = (dt, v) match {
    case (BooleanType, _: Boolean) | (ByteType, _: Byte) | (ShortType, _: Short) | (IntegerType | DateType, _: Int) |
         (LongType | TimestampType | TimestampNTZType, _: Long) | (FloatType, _: Float) | (DoubleType, _: Double) |
         (_: DecimalType, _: Decimal) | (_: StringType, _: UTF8String) => true
    case _ => false
  }

  /** The code point after `cp`, skipping the surrogates. */
  def nextCodePoint(cp: Int): Int = if (cp + 1 == Character.MIN_SURROGATE) Character.MAX_SURROGATE + 1 else cp + 1
}
