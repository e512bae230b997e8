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

  test("fields inside structs follow their ids: renamed keep (widened) stats, dropped go, added again are all null") {
    val old = StructType(Seq(StructField("a", IntegerType), StructField("b", StringType)))
    val now = StructType(Seq(StructField("x", LongType), StructField("b", StringType)))
    def column(id: Int, name: String, dt: DataType, ids: (String, Int)*) =
      ColumnDef(id, name, dt, nullable = true, fieldIds = ids.map { case (n, i) => Seq(n) -> i }.toMap)
    // s.a renamed to x and widened, s.b dropped and added again; the same inside the array l.
    val before = ShardSchema(IndexedSeq(column(1, "s", old, "a" -> 2, "b" -> 3), column(4, "l", ArrayType(old), "a" -> 5, "b" -> 6)), Nil)
    val after = ShardSchema(IndexedSeq(column(1, "s", now, "x" -> 2, "b" -> 7), column(4, "l", ArrayType(now), "x" -> 5, "b" -> 8)), Nil)
    val fields = StructStats(Map("a" -> ColumnStats(0, Some(1), Some(9)), "b" -> ColumnStats(1, None, None)))
    val elements = ArrayStats(1, 3, 20, Some(ColumnStats(0, None, None, nested = Some(fields))))
    val stats = PartStats(10, 100, Map(1 -> ColumnStats(0, None, None, nested = Some(fields)),
      4 -> ColumnStats(2, None, None, nested = Some(elements))))
    assert(StatsEvolution.conform(stats, before, after) === PartStats(10, 100, Map(
      1 -> ColumnStats(0, None, None, nested = Some(StructStats(Map("x" -> ColumnStats(0, Some(1L), Some(9L)),
        "b" -> ColumnStats(10, None, None))))),
      4 -> ColumnStats(2, None, None))))
    // Fields without ids (a shard from before them) are matched by name.
    val byName = ShardSchema(IndexedSeq(ColumnDef(1, "s", old, nullable = true)), Nil)
    assert(StatsEvolution.conform(stats, byName, byName.copy(columns = IndexedSeq(
      ColumnDef(1, "s", StructType(old.fields :+ StructField("c", IntegerType)), nullable = true)))).columns(1) ===
      ColumnStats(0, None, None, nested = Some(StructStats(fields.fields + ("c" -> ColumnStats(10, None, None))))))
  }
}
