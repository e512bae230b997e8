package sparkpersist.interpret

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import sparkpersist.schema.ShardSchema
import sparkpersist.stats.{BinaryStatsCodec, ColumnStats, EncodedStats, PartBounds, PartStats, StatsVector}

/**
 * The vectorized part decision ([[VectorFilter]]) against the interpreter and Spark's evaluator:
 * over the soundness property's random predicates and parts, it decides the same from heap stats
 * and from their encoded bytes, every part it rules out yields no row for which the condition is
 * true or raises, every part it keeps the interpreter keeps, and [[PartFilter]] with it keeps
 * what the interpreter alone keeps, but for parts ruled out where the interpreter cannot tell a
 * conjunct never raises.
 */
class VectorFilterSuite extends AnyFunSuite with ScalaCheckPropertyChecks with LocalSpark {
  import VectorFilterSuite._

  private lazy val attrs = SoundnessGen.columns.map { case (n, t) => AttributeReference(n, t)() }
  private lazy val analyzed = new Analyzed(spark, attrs)
  private val schema = genSchema
  private lazy val ids = AttributeMap(attrs.zip(schema.columns.map(_.id)))

  for (ansi <- Seq(true, false)) {
    test(s"random predicates: the same decision from heap stats and bytes, sound, and the interpreter's (ansi=$ansi)") {
      val check = new SoundnessCheck(spark)
      var parts, vectorized, ruledOut, kept, finer = 0
      forAll(sample, minSuccessful(org.scalactic.anyvals.PosInt.from(Cases).get)) { c =>
        val analyzedCondition = try Some(analyzed(c.sql, ansi, c.zone)) catch { case NonFatal(_) => None }
        analyzedCondition.foreach { withMz =>
          val condition = analyzed.withMzNow(withMz)
          val bound = BindReferences.bindReference(withMz, attrs :+ analyzed.mz)
          c.parts.foreach { pc =>
            val stats = byId(check.partStats(pc, c.zone))
            val mz = if (pc.part.mzSince) MzNowSpec.since(pc.part.mzNow) else MzNowSpec.at(pc.part.mzNow)
            val interpreted = PartFilter.compile(condition, ids, schema, mz, vectorized = false).keep(stats)
            val withVector = PartFilter.compile(condition, ids, schema, mz).keep(stats)
            parts += 1
            VectorFilter.compile(condition, ids, schema, mz).foreach { v =>
              vectorized += 1
              val (fromHeap, fromBytes) = (v.bounds(), v.bounds())
              fromHeap.fill(stats)
              fromBytes.fill(encoded(stats))
              assert(same(fromHeap, fromBytes), s"${c.sql}: bounds from the heap and from bytes differ, stats $stats")
              val decided = outcome(v, v.decide(fromHeap))
              if (decided == Kept || decided == ProvenTrue) {
                kept += 1
                assert(interpreted, s"${c.sql}: kept by the vector decision, ruled out by the interpreter, stats $stats")
              }
              if (decided == RuledOut) {
                ruledOut += 1
                if (interpreted) finer += 1
                for (r <- pc.part.rows; m <- pc.part.mzValues) {
                  val row: InternalRow = new GenericInternalRow((r :+ m).toArray)
                  val result = try bound.eval(row) catch { case NonFatal(e) => e }
                  assert(result == null || result == false,
                    s"${c.sql}: ruled out, but row ${r.mkString(", ")} (mz $m) gives $result; stats $stats")
                }
              }
            }
            assert(withVector == interpreted || !withVector,
              s"${c.sql}: the interpreter rules out, the vectorized filter keeps; stats $stats")
          }
        }
      }
      info(s"$parts parts, $vectorized with vectorized conjuncts: $ruledOut ruled out ($finer the interpreter keeps), $kept kept")
      // Not vacuous: most predicates have conjuncts compiled, and every outcome occurs.
      assert(vectorized > parts / 2 && ruledOut > parts / 10 && kept > parts / 10)
    }
  }

  private val ts = AttributeReference("ts", TimestampType)()
  private val score = AttributeReference("score", DoubleType)()
  private val s = AttributeReference("s", StringType)()
  private val small = ShardSchema.fromStruct(StructType(Seq(StructField("ts", TimestampType),
    StructField("score", DoubleType), StructField("s", StringType))))
  private val smallIds = AttributeMap(Seq(ts -> 1, score -> 2, s -> 3))

  private def decide(condition: Expression, stats: PartStats, mz: ResultSpec = MzNowSpec.at(0L)): Outcome = {
    val v = VectorFilter.compile(condition, smallIds, small, mz).get
    val b = v.bounds()
    b.fill(stats)
    outcome(v, v.decide(b))
  }

  /**
   * A vectorized decision as the interpreter takes it: `Undecided` is final ([[Kept]]) when the
   * filter is whole, else left to the interpreter ([[ToInterpreter]]).
   */
  private sealed trait Outcome
  private case object Kept extends Outcome
  private case object ToInterpreter extends Outcome
  private final case class Decided(d: PartDecision) extends Outcome
  private val RuledOut = Decided(PartDecision.RuledOut)
  private val ProvenTrue = Decided(PartDecision.ProvenTrue)

  private def outcome(v: VectorFilter, d: PartDecision): Outcome =
    if (d != PartDecision.Undecided) Decided(d) else if (v.whole) Kept else ToInterpreter

  private def scores(nulls: Long, lo: Double, hi: Double) = PartStats(10, 1, Map(2 -> ColumnStats(nulls, Some(lo), Some(hi))))

  test("doubles compare as Spark compares them: NaN above infinity, -0.0 equal to 0.0") {
    val above = GreaterThan(score, Literal(1.9))
    assert(decide(above, scores(0, -1.0, 1.9)) == RuledOut)
    assert(decide(above, scores(0, -1.0, 1.95)) == Kept)
    assert(decide(above, scores(0, -1.0, Double.NaN)) == Kept)
    assert(decide(above, scores(0, Double.NegativeInfinity, Double.PositiveInfinity)) == Kept)
    // A point lookup (a membership filter could rule the part out: undecided), here true on every row.
    assert(decide(EqualTo(score, Literal(0.0)), scores(0, -0.0, -0.0)) == ProvenTrue)
    assert(decide(EqualTo(score, Literal(0.0)), scores(0, -0.0, 1.0)) == ToInterpreter)
    assert(decide(LessThan(score, Literal(0.0)), scores(0, -0.0, 5.0)) == RuledOut)
    assert(decide(LessThan(score, Literal(Double.NaN)), scores(0, Double.NaN, Double.NaN)) == RuledOut)
    assert(decide(GreaterThanOrEqual(score, Literal(Double.NaN)), scores(0, 1.0, Double.NaN)) == Kept)
    // All null: the comparison is null (ruled out); IS NULL is true on every row (proven true).
    assert(decide(above, scores(10, 0, 0).copy(columns = Map(2 -> ColumnStats(10, None, None)))) == RuledOut)
    assert(decide(IsNull(score), PartStats(10, 1, Map(2 -> ColumnStats(10, None, None)))) == ProvenTrue)
    assert(decide(IsNotNull(score), PartStats(10, 1, Map(2 -> ColumnStats(10, None, None)))) == RuledOut)
    assert(decide(Not(above), scores(0, 2.0, 3.0)) == RuledOut)
  }

  test("missing, damaged and out-of-order stats admit any value") {
    val above = GreaterThan(score, Literal(1.9))
    assert(decide(above, PartStats(10, 1, Map.empty)) == Kept)
    assert(decide(above, PartStats(10, 1, Map(2 -> ColumnStats(0, Some("1.0"), Some(1.0))))) == Kept)
    assert(decide(above, scores(0, 1.5, 1.0)) == Kept)
    assert(decide(above, PartStats(10, 1, Map(2 -> ColumnStats(0, Some(1.0), None)))) == Kept)
    // Bytes: a cut entry is no stats; a cut bound is no bound; a null count above the rows is no stats.
    val codec = BinaryStatsCodec(small)
    val entry = codec.columnEntries(scores(0, -1.0, 1.0)).toMap.apply(2)
    val v = VectorFilter.compile(above, smallIds, small, MzNowSpec.at(0L)).get
    def fromBytes(bytes: Array[Byte], rows: Long): Outcome = {
      val b = v.bounds()
      b.fill(encodedEntries(small, Map(2 -> bytes), rows))
      outcome(v, v.decide(b))
    }
    assert(fromBytes(entry, 10) == RuledOut)
    for (cut <- 1 until entry.length) assert(fromBytes(entry.take(cut), 10) == Kept, s"cut at $cut")
    val manyNulls = codec.columnEntries(PartStats(10, 1, Map(2 -> ColumnStats(11, Some(-1.0), Some(1.0))))).toMap.apply(2)
    assert(fromBytes(manyNulls, 10) == Kept)
  }

  test("a conjunct left to the interpreter: ruled out only when it cannot raise") {
    val old = PartStats(10, 1, Map(1 -> ColumnStats(0, Some(0L), Some(100L)), 3 -> ColumnStats(0, None, None)))
    val recent = GreaterThan(ts, Literal(1000L, TimestampType))
    // A string comparison never raises: the window rules the part out alone.
    assert(decide(And(recent, EqualTo(s, Literal("US"))), old) == RuledOut)
    assert(decide(And(recent, Or(In(s, Seq(Literal("a"), Literal("b"))), IsNull(s))), old) == RuledOut)
    // An ANSI cast may raise on some row even though the window is false: the interpreter decides.
    val cast = GreaterThan(Cast(s, IntegerType, Some("UTC"), EvalMode.ANSI), Literal(0))
    assert(decide(And(recent, cast), old) == ToInterpreter)
    assert(PartFilter.compile(And(recent, cast), smallIds, small, MzNowSpec.at(0L)).keep(old))
    // A window that may be true leaves the rest to decide.
    assert(decide(And(recent, EqualTo(s, Literal("US"))), old.copy(columns = old.columns.updated(1,
      ColumnStats(0, Some(0L), Some(2000L))))) == ToInterpreter)
    assert(VectorFilter.compile(cast, smallIds, small, MzNowSpec.at(0L)).isEmpty)
  }

  test("mz_now() windows: at one time and over a continuous read") {
    val day = 86400L * 1000000L
    // ts >= mz_now() - INTERVAL 30 DAYS
    val window = GreaterThanOrEqual(ts,
      TimestampAddInterval(MzNow(), Literal(-30 * day, DayTimeIntervalType()), Some("UTC")))
    def part(lo: Long, hi: Long) = PartStats(10, 1, Map(1 -> ColumnStats(0, Some(lo * day), Some(hi * day))))
    assert(decide(window, part(60, 69), MzNowSpec.at(100 * day)) == RuledOut)
    assert(decide(window, part(60, 70), MzNowSpec.at(100 * day)) == Kept)
    // mz_now() only grows over a continuous read: the window only closes.
    assert(decide(window, part(60, 69), MzNowSpec.since(100 * day)) == RuledOut)
    assert(decide(LessThanOrEqual(ts, MzNow()), part(200, 300), MzNowSpec.since(100 * day)) == Kept)
    assert(decide(LessThanOrEqual(ts, MzNow()), part(200, 300), MzNowSpec.at(100 * day)) == RuledOut)
    // The interpreter's own shape: mz_now() <= ts + INTERVAL 30 DAYS, through the function's thresholds.
    val shifted = LessThanOrEqual(MzNow(), TimestampAddInterval(ts, Literal(30 * day, DayTimeIntervalType()), Some("UTC")))
    assert(decide(shifted, part(60, 69), MzNowSpec.at(100 * day)) == RuledOut)
    assert(decide(shifted, part(60, 70), MzNowSpec.at(100 * day)) == Kept)
    assert(decide(shifted, part(60, 69), MzNowSpec.since(100 * day)) == RuledOut)
    // As the analyzer leaves it: the sum cast to its own type.
    val cast = LessThanOrEqual(MzNow(), Cast(TimestampAddInterval(ts, Literal(30 * day, DayTimeIntervalType()), Some("UTC")),
      TimestampType, Some("UTC")))
    assert(decide(cast, part(60, 69), MzNowSpec.at(100 * day)) == RuledOut)
    assert(decide(cast, part(60, 70), MzNowSpec.at(100 * day)) == Kept)
    // Near the end of time, ts + 30 days overflows: the part may raise, and is kept.
    val end = PartStats(10, 1, Map(1 -> ColumnStats(0, Some(0L), Some(Long.MaxValue - day))))
    assert(decide(shifted, end, MzNowSpec.at(100 * day)) == Kept)
    assert(decide(And(shifted, EqualTo(s, Literal("US"))), end, MzNowSpec.at(100 * day)) == ToInterpreter)
    assert(PartFilter.compile(shifted, smallIds, small, MzNowSpec.at(Long.MaxValue)).keep(end))
    assert(decide(shifted, PartStats(10, 1, Map.empty), MzNowSpec.at(100 * day)) == Kept)
    // A constant that may raise is not compiled.
    val overflow = TimestampAddInterval(MzNow(), Literal(Long.MaxValue, DayTimeIntervalType()), Some("UTC"))
    assert(VectorFilter.compile(LessThan(ts, overflow), smallIds, small, MzNowSpec.at(day)).isEmpty)
  }
}

object VectorFilterSuite {
  import org.scalacheck.Gen

  /** Cases per ANSI mode (`-Dsparkpersist.vectorCases=N` for a longer run). */
  private val Cases = sys.props.get("sparkpersist.vectorCases").map(_.toInt).getOrElse(300)

  /** Constants (SQL) of each column's type that its generated values often meet, `mz` among them. */
  private val constants: Seq[(String, Seq[String])] = Seq(
    "i" -> Seq("0", "1", "-7", "2147483647", "-2147483648", "100", "NULL"),
    "sh" -> Seq("0S", "-3S", "32767S", "-32768S"),
    "l" -> Seq("0L", "1L", "9223372036854775807L", "-9223372036854775808L", "86400000L"),
    "d" -> Seq("0.5D", "-0.0D", "0.0D", "double('NaN')", "double('Infinity')", "double('-Infinity')", "1.0E300D"),
    "f" -> Seq("0.5F", "-0.0F", "float('NaN')", "float('Infinity')", "float('-Infinity')"),
    "dt" -> Seq("DATE'2024-01-01'", "DATE'0001-01-01'", "DATE'9999-12-31'", "DATE'1970-01-01'"),
    "ts" -> Seq("TIMESTAMP'2024-01-01 00:00:00'", "TIMESTAMP'1970-01-01 00:00:00'", "mz", "mz - INTERVAL 30 DAYS",
      "mz + INTERVAL '2' HOUR", "TIMESTAMP'9999-12-31 00:00:00' + INTERVAL '100000000' DAY"),
    "b" -> Seq("true", "false"))

  /** A comparison of a column with a constant, either way round, a null test, or any predicate. */
  private val leaf: Gen[String] = Gen.frequency(
    8 -> (for {
      (column, values) <- Gen.oneOf(constants)
      op <- Gen.oneOf("=", "<", "<=", ">", ">=", "!=")
      c <- Gen.oneOf(values)
      flip <- Gen.oneOf(false, true)
    } yield if (flip) s"($c $op $column)" else s"($column $op $c)"),
    2 -> Gen.oneOf(constants.map(_._1)).flatMap(c => Gen.oneOf(s"($c IS NULL)", s"($c IS NOT NULL)")),
    3 -> (for {
      f <- Gen.oneOf("ts + INTERVAL 30 DAYS", "ts - INTERVAL '2' HOUR", "ts + INTERVAL '100000000' DAY",
        "l + 1L", "l * 1000L", "i - 7", "i * -3", "cast(i as bigint)", "unix_millis(ts)", "ts + INTERVAL 1 MONTH",
        "timestamp_millis(l)", "date_trunc('HOUR', ts)")
      op <- Gen.oneOf("=", "<", "<=", ">", ">=")
      c <- Gen.oneOf("mz", "TIMESTAMP'2024-01-01 00:00:00'", "0", "0L", "9223372036854775807L", "-2147483648", "NULL")
    } yield s"($f $op $c)"),
    1 -> Gen.oneOf("(s = 'US')", "(cast(s as int) > 3)"),
    1 -> SoundnessGen.predicate)

  private def predicate(d: Int): Gen[String] =
    if (d <= 0) leaf
    else Gen.frequency(3 -> leaf,
      3 -> (for (a <- predicate(d - 1); b <- predicate(d - 1)) yield s"($a AND $b)"),
      1 -> (for (a <- predicate(d - 1); b <- predicate(d - 1)) yield s"($a OR $b)"),
      1 -> predicate(d - 1).map(a => s"(NOT $a)"))

  /** Cases of the soundness property with predicates the vectorized decision mostly compiles. */
  val sample: Gen[SoundnessGen.Case] = for {
    c <- SoundnessGen.sample
    sql <- Gen.choose(0, 3).flatMap(predicate)
  } yield c.copy(sql = sql)

  val genSchema = ShardSchema.fromStruct(StructType(SoundnessGen.columns.map { case (n, t) => StructField(n, t) }))

  /** Stats keyed by the column's position in [[SoundnessGen.columns]], keyed by column id instead. */
  def byId(stats: PartStats): PartStats =
    stats.copy(columns = stats.columns.map { case (i, c) => genSchema.columns(i).id -> c })

  /** `stats` as a columnar rollup holds them: one part of encoded stats, decoded lazily. */
  private def encoded(stats: PartStats): PartStats =
    encodedEntries(genSchema, BinaryStatsCodec(genSchema).columnEntries(stats).toMap, stats.rowCount)

  def encodedEntries(schema: ShardSchema, entries: Map[Int, Array[Byte]], rows: Long): PartStats = {
    val ids = schema.columns.map(_.id).toArray
    val vectors = ids.map { id =>
      val b = new StatsVector.Builder(1)
      entries.get(id).fold(b.addNone())(e => b.add(e, 0, e.length))
      b.result()
    }
    new EncodedStats(BinaryStatsCodec(schema), ids, 1, vectors(_), (i, segments) => segments.map(_ => vectors(i)),
      1024, _ => None).part(0, rows, 1, Set.empty)
  }

  private def same(a: PartBounds, b: PartBounds): Boolean =
    a.flags.indices.forall { k =>
      a.flags(k) == b.flags(k) &&
        ((a.flags(k) & PartBounds.Bounded) == 0 || (a.lower(k) == b.lower(k) && a.upper(k) == b.upper(k)))
    }
}
