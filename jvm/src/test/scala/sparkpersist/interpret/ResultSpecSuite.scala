package sparkpersist.interpret

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.interpret.Values._
import sparkpersist.stats.{ColumnStats, PartStats}

class ResultSpecSuite extends AnyFunSuite {
  private val ints = ValueOrdering.of(IntegerType).get
  private val doubles = ValueOrdering.of(DoubleType).get
  private def range(lo: Any, hi: Any) = ResultSpec(nullable = false, fallible = false, Within(lo, hi))

  test("union and intersect of ranges, empty and all") {
    assert(range(1, 3).union(range(5, 9), ints) == range(1, 9))
    assert(range(1, 3).intersect(range(5, 9), ints) == ResultSpec(false, false, Empty))
    assert(range(1, 6).intersect(range(5, 9), ints) == range(5, 6))
    assert(ResultSpec.AlwaysNull.union(range(2, 2), ints) == ResultSpec(true, false, Within(2, 2)))
    assert(range(1, 2).union(ResultSpec.Anything, ints) == ResultSpec.Anything)
    assert(ResultSpec.AnyValue.intersect(range(1, 2), ints) == range(1, 2))
  }

  test("nested specs: a field missing on one side of a union means anything") {
    val a = ResultSpec(false, false, Nested(Map("x" -> range(1, 2), "y" -> range(0, 0))))
    val b = ResultSpec(false, false, Nested(Map("x" -> range(5, 6))))
    assert(a.union(b, ints) == ResultSpec(false, false, Nested(Map("x" -> range(1, 6)))))
    assert(a.intersect(b, ints).values ==
      Nested(Map("x" -> ResultSpec(false, false, Empty), "y" -> range(0, 0))))
  }

  test("NaN is the largest double and -0.0 equals 0.0") {
    val upToNaN = range(1.0, Double.NaN)
    assert(upToNaN.mayContain(Double.NaN, doubles))
    assert(upToNaN.mayContain(Double.PositiveInfinity, doubles))
    assert(!range(1.0, Double.PositiveInfinity).mayContain(Double.NaN, doubles))
    assert(range(0.0, 0.0).mayContain(-0.0, doubles))
    assert(!range(-1.0, 5.0).mayContain(null, doubles))
  }

  test("truth values of boolean specs") {
    val maybe = ResultSpec.bool(mayBeFalse = true, mayBeTrue = true, nullable = false, fallible = false)
    assert(maybe.mayBeTrue && maybe.mayBeFalse)
    val no = ResultSpec.bool(mayBeFalse = true, mayBeTrue = false, nullable = true, fallible = false)
    assert(!no.mayBeTrue && no.mayBeFalse && no.nullable && !no.mayFail)
    assert(!ResultSpec.AlwaysNull.mayBeTrue && !ResultSpec.AlwaysNull.mayBeFalse)
    assert(ResultSpec.Anything.mayBeTrue && ResultSpec.Anything.mayFail)
  }

  test("column specs from part stats") {
    val id = new PartSpecs(7, IntegerType)
    def part(c: ColumnStats) = PartStats(10, 100, Map(7 -> c))
    assert(id(PartStats(10, 100, Map.empty)) == ResultSpec.AnyValue)
    assert(id(part(ColumnStats(10, None, None))) == ResultSpec(true, false, Empty))
    assert(id(part(ColumnStats(0, Some(3), Some(8)))) == range(3, 8))
    assert(id(part(ColumnStats(2, Some(3), Some(8)))) == ResultSpec(true, false, Within(3, 8)))
    // Conservative on incomplete or corrupt stats.
    assert(id(part(ColumnStats(0, Some(3), None))) == ResultSpec(false, false, All))
    assert(id(part(ColumnStats(0, Some(3L), Some(8L)))) == ResultSpec(false, false, All))
    assert(id(part(ColumnStats(0, Some(9), Some(8)))) == ResultSpec(false, false, All))
    // Types without ranges.
    val arrays = new PartSpecs(7, ArrayType(IntegerType))
    assert(arrays(part(ColumnStats(1, Some(3), Some(8)))) == ResultSpec(true, false, All))
    // A string upper bound may be absent: the lower bound alone gives nothing.
    val strings = new PartSpecs(7, StringType)
    assert(strings(part(ColumnStats(0, Some(UTF8String.fromString("ab")), None))).values == All)
  }

  test("prefix ranges for startswith and LIKE") {
    def next(s: String) = Interpreter.nextPrefix(s.getBytes("UTF-8")).map(new String(_, "UTF-8"))
    assert(next("US") == Some("UT"))
    assert(next("") == None)
    assert(Interpreter.nextPrefix(Array(0x61.toByte, 0xFF.toByte)).map(_.toSeq) == Some(Seq(0x62.toByte)))
    assert(Interpreter.nextPrefix(Array(0xFF.toByte)) == None)
    assert(Interpreter.likePrefix("ab%", '\\') == ("ab", "%"))
    assert(Interpreter.likePrefix("a_c%", '\\') == ("a", "_c%"))
    assert(Interpreter.likePrefix("a\\%b", '\\') == ("a", "\\%b"))
    assert(Interpreter.likePrefix("abc", '\\') == ("abc", ""))
  }
}
