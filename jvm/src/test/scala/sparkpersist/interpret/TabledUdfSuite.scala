package sparkpersist.interpret

import scala.util.Try

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.schema.ShardSchema
import sparkpersist.stats.{ColumnStats, PartStats}

/**
 * Declared monotone Python functions decided in two passes through a [[UdfTable]], with a JVM
 * stand-in for the probe job (the end-to-end tests run real Python: tests/test_monotone_udf.py).
 */
class TabledUdfSuite extends AnyFunSuite {
  private val schema = ShardSchema.fromStruct(StructType(Seq(StructField("event_ts", TimestampType))))
  private val ts = AttributeReference("event_ts", TimestampType)()
  private val ids = AttributeMap(Seq(ts -> 1))
  private val hour = 3600L * 1000000L
  private val declared = Map("bucket" -> Direction.Up)

  /** A scalar Python UDF call as the analyzer builds it (its Python function is never run here). */
  private def bucket(deterministic: Boolean = true) =
    PythonUDF("Bucket", null, LongType, Seq(ts), evalType = 100, udfDeterministic = deterministic)

  /** Part p holds half an hour of events from hour p on (nulls: how many null timestamps). */
  private def part(p: Int, nulls: Long = 0) =
    PartStats(10, 100, Map(1 -> ColumnStats(nulls, Some(p * hour), Some(p * hour + hour / 2))))
  private val parts = (0 until 6).map(part(_))

  /**
   * The points the first pass asks for, and which parts the second keeps when the probe job
   * evaluates `f` there (a point where `f` throws is recorded as raising).
   */
  private def twoPasses(condition: Expression, f: Long => Long, stats: Seq[PartStats] = parts,
      udfs: Map[String, Direction] = declared): (Set[Long], Seq[Boolean]) = {
    val recording = new UdfTable.Recording
    val first = PartFilter.compile(condition, ids, schema, MzNowSpec.at(0L), udfs, recording)
    assert(stats.forall(first.keep), "the first pass knows no value: it keeps every part")
    val values = recording.points.map { case (function, points) =>
      function -> points.map(p => p -> Try(f(p.head.asInstanceOf[Long]): Any).toOption).toMap
    }
    val second = PartFilter.compile(condition, ids, schema, MzNowSpec.at(0L), udfs, new UdfTable.Known(values))
    (recording.points.values.flatten.map(_.head.asInstanceOf[Long]).toSet, stats.map(second.keep))
  }

  test("the first pass records each part's endpoints; the second decides with their values") {
    val (points, kept) = twoPasses(EqualTo(bucket(), Literal(3L)), _ / hour)
    assert(points == (0 until 6).flatMap(p => Seq(p * hour, p * hour + hour / 2)).toSet)
    assert(kept == Seq(false, false, false, true, false, false))
    val (_, between) = twoPasses(And(GreaterThanOrEqual(bucket(), Literal(1L)), LessThanOrEqual(bucket(), Literal(2L))),
      _ / hour)
    assert(between == Seq(false, true, true, false, false, false))
  }

  test("an endpoint where the function raised, or one the table lacks, keeps the part") {
    val raisingBelowTwo = (t: Long) => if (t < 2 * hour) throw new ArithmeticException("below") else t / hour
    assert(twoPasses(EqualTo(bucket(), Literal(4L)), raisingBelowTwo)._2 == Seq(true, true, false, false, true, false))
    val empty = PartFilter.compile(EqualTo(bucket(), Literal(4L)), ids, schema, MzNowSpec.at(0L), declared,
      new UdfTable.Known(Map.empty))
    assert(parts.forall(empty.keep))
  }

  test("a part whose argument may be null keeps: the function may map null anywhere") {
    assert(twoPasses(EqualTo(bucket(), Literal(3L)), _ / hour, Seq(part(3), part(4), part(4, nulls = 2)))._2 ==
      Seq(true, false, true))
  }

  test("non-deterministic and undeclared functions are never evaluated") {
    val (points, kept) = twoPasses(EqualTo(bucket(deterministic = false), Literal(3L)), _ / hour)
    assert(points.isEmpty && kept.forall(identity))
    val (undeclaredPoints, undeclared) = twoPasses(EqualTo(bucket(), Literal(3L)), _ / hour, udfs = Map.empty)
    assert(undeclaredPoints.isEmpty && undeclared.forall(identity))
    assert(Interpreter.tabledCalls(And(EqualTo(bucket(), Literal(3L)), EqualTo(bucket(false), Literal(1L))),
      declared) == Seq("bucket"))
    assert(Interpreter.tabledCalls(EqualTo(bucket(), Literal(3L)), Map.empty).isEmpty)
  }
}
