package sparkpersist.interpret

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, BindReferences, Expression, GenericInternalRow, IsNull, MutableProjection}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateMutableProjection
import org.apache.spark.sql.types.{DataType, StringType, TimestampType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import sparkpersist.stats.{ColumnStats, PartStats, StatsCollector}
import sparkpersist.stats.legacy.LegacyStatsJson

/**
 * Soundness of casts of text against Spark: for random strings ([[CastAwareGen]]) whose cast stats
 * are collected in one session time zone and read back through the codec, `CAST(s AS t)` and
 * `try_cast(s AS t)`, analyzed in both ANSI modes and in another (or the same) time zone, are
 * evaluated by Spark, interpreted and generated; every result (value, NULL or error) must be
 * admitted by the abstract spec the interpreter gives from the stats.
 */
class CastAwareSoundnessSuite extends AnyFunSuite with ScalaCheckPropertyChecks with LocalSpark {

  private val column = AttributeReference("s", StringType)()

  /** One analyzed cast: the expression, its interpreted and generated evaluators, its spec's reader. */
  private final case class Compiled(sql: String, ansi: Boolean, zone: String, expr: Expression,
      node: SpecNode, cast: TextCasts.TextCast, generated: MutableProjection) {
    private val bound = BindReferences.bindReference(expr, Seq(column))
    def interpreted(row: InternalRow): Any = bound.eval(row)
    def dataType: DataType = expr.dataType
  }

  private lazy val compiled: Seq[Compiled] = {
    val analyzed = new Analyzed(spark, Seq(column))
    for {
      zone <- CastAwareGen.zones
      ansi <- Seq(true, false)
      target <- CastAwareGen.targets
      form <- Seq("CAST", "try_cast")
    } yield {
      val sql = s"$form(s AS $target)"
      val expr = analyzed(s"$sql IS NULL", ansi, zone).asInstanceOf[IsNull].child
      var cast: Option[TextCasts.TextCast] = None
      val node = Interpreter.compile(expr, _ => None, ResultSpec.Anything, (_, c) => { cast = Some(c); Some(0) })
      assert(cast.isDefined, s"$sql (ansi=$ansi) is not read from cast stats: $expr")
      val generated = GenerateMutableProjection.generate(Seq(BindReferences.bindReference(expr, Seq(column))))
      Compiled(sql, ansi, zone, expr, node, cast.get, generated)
    }
  }

  private val codec = new LegacyStatsJson(Map(1 -> StringType))

  private def stats(values: Seq[String], zone: String): PartStats = {
    val collector = StatsCollector.forColumn(StringType, json = false, 64, Some(zone))
    val row = new GenericInternalRow(1)
    values.foreach { v =>
      row.update(0, if (v == null) null else UTF8String.fromString(v))
      collector.update(row, 0)
    }
    codec.decode(codec.encode(PartStats(values.size, 0, Map(1 -> collector.result()))))
  }

  private def admitted(spec: ResultSpec, concrete: Either[Throwable, Any], dt: DataType): Boolean = concrete match {
    case Left(_) => spec.fallible
    case Right(null) => spec.nullable
    case Right(v) => spec.mayContain(v, ValueOrdering.of(dt).get)
  }

  private def render(s: String): String =
    if (s == null) "null" else "\"" + s.flatMap(c => if (c < ' ' || c > '~') f"\\u$c%04x" else c.toString) + "\""

  test("every cast of text is admitted by its spec from the cast stats (ANSI and legacy, four zones)") {
    var checks, specs, precise, skippable = 0
    val cases = for {
      values <- CastAwareGen.part
      writeZone <- Gen.oneOf(CastAwareGen.zones)
      queryZone <- Gen.frequency(2 -> Gen.const(writeZone), 1 -> Gen.oneOf(CastAwareGen.zones))
    } yield (values, writeZone, queryZone)
    forAll(cases, minSuccessful(400)) { case (values, writeZone, queryZone) =>
      val part = stats(values, writeZone)
      compiled.filter(_.zone == queryZone).foreach { c =>
        val spec = c.node.eval(Array(new CastSpecs(1, c.cast)(part)))
        specs += 1
        if (spec.values.isInstanceOf[Values.Within]) precise += 1
        if (!spec.fallible && spec.values == Values.Empty) skippable += 1
        values.foreach { v =>
          val row = new GenericInternalRow(Array[Any](if (v == null) null else UTF8String.fromString(v)))
          def run(f: => Any): Either[Throwable, Any] = try Right(f) catch { case NonFatal(e) => Left(e) }
          Seq("interpreted" -> run(c.interpreted(row)), "generated" -> run(c.generated(row).get(0, c.dataType)))
            .foreach { case (how, concrete) =>
              checks += 1
              assert(admitted(spec, concrete, c.dataType),
                s"${c.sql} (ansi=${c.ansi}, zone ${c.zone}) of ${render(v)} gave ($how) " +
                  concrete.fold(e => s"error ${e.getClass.getSimpleName}: ${e.getMessage.take(160)}", String.valueOf) +
                  s", but its spec is $spec\n  part ${values.map(render).mkString(", ")} written in $writeZone" +
                  s"\n  cast stats ${part.columns(1).casts}")
            }
        }
      }
    }
    info(s"$checks (cast, value) checks; $specs specs, $precise with a range, $skippable with no value and no error")
    // Not vacuous: many specs bound their values, or have none.
    assert(precise > specs / 10)
    assert(skippable > specs / 10)
  }

  test("a timestamp text no value of which parsed where it was written may parse in another zone") {
    // Found by the property above (seed 277018191265365030): "-290308-12-21 19" is before the
    // first timestamp in Berlin but not in Los Angeles; the timestamp view counted no value.
    val part = stats(Seq("-290308-12-21 19"), "Europe/Berlin")
    val casts = compiled.filter(c => c.zone == "America/Los_Angeles" && c.dataType == TimestampType)
    assert(casts.nonEmpty)
    casts.foreach { c =>
      val spec = c.node.eval(Array(new CastSpecs(1, c.cast)(part)))
      val row = new GenericInternalRow(Array[Any](UTF8String.fromString("-290308-12-21 19")))
      assert(admitted(spec, Right(c.interpreted(row)), c.dataType), s"${c.sql} (ansi=${c.ansi}): $spec")
    }
  }

  test("a part whose strings all parse gives an exact, infallible range, under ANSI too") {
    val part = stats(Seq(" 12", "-3", "+40 ", null), "UTC")
    compiled.filter(c => c.zone == "UTC" && c.sql == "CAST(s AS INT)").foreach { c =>
      assert(c.node.eval(Array(new CastSpecs(1, c.cast)(part))) ===
        ResultSpec(nullable = true, fallible = false, Values.Within(-3, 40)), c.ansi)
    }
  }

  test("the check catches a spec read from the wrong view: ANSI raises on \"1.9\", legacy truncates it") {
    val part = stats(Seq("1.9", "7"), "UTC")
    val ansi = compiled.find(c => c.zone == "UTC" && c.ansi && c.sql == "CAST(s AS INT)").get
    val legacy = compiled.find(c => c.zone == "UTC" && !c.ansi && c.sql == "CAST(s AS INT)").get
    val row = new GenericInternalRow(Array[Any](UTF8String.fromString("1.9")))
    val raised = try Right(ansi.interpreted(row)) catch { case NonFatal(e) => Left(e) }
    assert(raised.isLeft)
    assert(legacy.interpreted(row) === 1)
    assert(admitted(ansi.node.eval(Array(new CastSpecs(1, ansi.cast)(part))), raised, ansi.dataType))
    assert(!admitted(ansi.node.eval(Array(new CastSpecs(1, legacy.cast)(part))), raised, ansi.dataType))
    assert(legacy.node.eval(Array(new CastSpecs(1, legacy.cast)(part))) ===
      ResultSpec(nullable = false, fallible = false, Values.Within(1, 7)))
  }

  test("casts of columns without cast stats keep their former meaning: anything") {
    val noCasts = PartStats(2, 0, Map(1 -> ColumnStats(0, Some(UTF8String.fromString("1")), Some(UTF8String.fromString("2")))))
    compiled.take(4).foreach(c => assert(c.node.eval(Array(new CastSpecs(1, c.cast)(noCasts))) === ResultSpec.Anything))
  }
}
