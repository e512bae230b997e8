package sparkpersist.stats

import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import sparkpersist.schema.{ColumnDef, ShardSchema}

/** Part statistics carried across schema changes by column id ([[StatsEvolution]]). */
class StatsEvolutionSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  private def schema(columns: (Int, String, DataType)*): ShardSchema =
    ShardSchema(columns.map { case (id, name, dt) => ColumnDef(id, name, dt, nullable = true) }.toIndexedSeq, Nil)

  test("added columns are all null, dropped ones go, renamed ones keep their stats, trimmed follows") {
    val before = schema((1, "a", IntegerType), (2, "b", StringType), (3, "c", LongType))
    val after = schema((1, "renamed", IntegerType), (3, "c", LongType), (4, "b", StringType))
    val stats = PartStats(10, 100, Map(1 -> ColumnStats(0, Some(1), Some(9)), 2 -> ColumnStats(2, None, None)),
      trimmed = Set(2, 3))
    assert(StatsEvolution.conform(stats, before, after) === PartStats(10, 100,
      Map(1 -> ColumnStats(0, Some(1), Some(9)), 4 -> ColumnStats(10, None, None)), trimmed = Set(3)))
  }

  test("widened bounds are the same values in the new type") {
    def widen(from: DataType, to: DataType, lo: Any, hi: Any) =
      StatsEvolution.widen(ColumnStats(1, Some(lo), Some(hi)), from, to)
    assert(widen(ByteType, LongType, -3.toByte, 7.toByte) === ColumnStats(1, Some(-3L), Some(7L)))
    assert(widen(ShortType, IntegerType, -3.toShort, 7.toShort) === ColumnStats(1, Some(-3), Some(7)))
    assert(widen(IntegerType, LongType, Int.MinValue, Int.MaxValue) ===
      ColumnStats(1, Some(Int.MinValue.toLong), Some(Int.MaxValue.toLong)))
    assert(widen(FloatType, DoubleType, -0.0f, Float.NaN) === ColumnStats(1, Some(-0.0d), Some(Double.NaN)))
    val d = widen(DecimalType(5, 2), DecimalType(9, 3), Decimal(BigDecimal("-999.99"), 5, 2), Decimal(BigDecimal("1.25"), 5, 2))
    assert(d.lower.map(_.asInstanceOf[Decimal].toJavaBigDecimal.toPlainString) === Some("-999.990"))
    assert(d.upper.map(_.asInstanceOf[Decimal]).map(v => (v.precision, v.scale)) === Some((9, 3)))
    // A change that is not a widening keeps only the null count.
    assert(widen(IntegerType, DoubleType, 1, 2) === ColumnStats(1, None, None))
    assert(widen(DecimalType(5, 2), DecimalType(5, 1), Decimal(BigDecimal("1.25"), 5, 2),
      Decimal(BigDecimal("1.25"), 5, 2)) === ColumnStats(1, None, None))
  }

  test("a widened float bound equals the widened value, for every float") {
    forAll { (f: Float) =>
      val w = StatsEvolution.widen(ColumnStats(0, Some(f), Some(f)), FloatType, DoubleType)
      assert(w.lower.map(v => java.lang.Double.compare(v.asInstanceOf[Double], f.toDouble)) === Some(0))
    }
  }
}
