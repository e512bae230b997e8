package sparkpersist.bench


import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.QueryPlanningTracker
import org.apache.spark.sql.catalyst.expressions.{AttributeMap, AttributeReference, Expression}
import org.apache.spark.sql.catalyst.optimizer.ReplaceExpressions
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LocalRelation}
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType, TimestampType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalacheck.rng.Seed

import sparkpersist.interpret.{DecisionCheck, MzNow, MzNowSpec, PartFilter, SoundnessCheck, SoundnessGen, VectorFilterSuite}
import sparkpersist.plan.PartDecisions
import sparkpersist.schema.ShardSchema
import sparkpersist.stats.{ColumnStats, PartStats}

/**
 * Benchmarks of the abstract interpreter (issue 3).
 *
 *  - [[decisionTimes]]: time to decide 1k to 1M parts, one by one and in parallel, for [[Predicate]] (the filter
 *    compiled once), which [[PlanningBench]] reports;
 *  - `InterpretBench soundness N [seed]`: the soundness property of the test suite with `N`
 *    predicates per ANSI mode; exits with status 1 on any violation;
 *  - `InterpretBench truth N [seed]`: both proofs of the three-way part decision (ruled out,
 *    proven true; [[DecisionCheck]]) until `N` (row, decided part) checks per ANSI mode ran;
 *    exits with status 1 on any violation (`make soak` runs 10^6).
 */
object InterpretBench {

  def main(args: Array[String]): Unit = args.toList match {
    case "soundness" :: n :: rest => soundness(n.toInt, rest.headOption.map(_.toLong).getOrElse(1L))
    case "truth" :: n :: rest => truth(n.toLong, rest.headOption.map(_.toLong).getOrElse(1L))
    case _ =>
      System.err.println("usage: InterpretBench soundness <predicates> [seed] | truth <checks> [seed]  " +
        "(decision time: PlanningBench)")
      sys.exit(2)
  }

  def session(): SparkSession =
    SparkSession.builder().master("local[1]").appName("InterpretBench")
      .config("spark.ui.enabled", "false").getOrCreate()

  /**
   * The part decision time at one shard size for one way of deciding (`vectorized`: with
   * [[sparkpersist.interpret.VectorFilter]], as scans decide; else the interpreter alone):
   * `parts` decided in `medianNanos` one by one, in `parallelMedianNanos` over the machine's cores
   * ([[PartDecisions]]), `kept` kept.
   */
  final case class Decision(parts: Int, kept: Int, medianNanos: Long, parallelMedianNanos: Long, vectorized: Boolean) {
    def nanosPerPart: Double = medianNanos.toDouble / parts
  }

  val Predicate = "mz_now() <= event_ts + INTERVAL 30 DAYS AND country = 'US'"
  val Runs = 15

  /**
   * Decides the first n of `sizes.max` synthetic parts (one hour each, a few countries per part)
   * for each n in `sizes`, with [[Predicate]] compiled once, by the interpreter alone and with
   * the vectorized decision, alternating run by run: median of [[Runs]] after 20 warm-ups. Both
   * must keep the same parts. The stats are objects on the heap, as a JSON rollup or the diffs
   * after a rollup give them (a columnar rollup's are read from bytes: [[OpenShardBench]]).
   */
  def decisionTimes(spark: SparkSession, sizes: Seq[Int]): Seq[Decision] = {
    val schema = ShardSchema.fromStruct(StructType(Seq(
      StructField("event_ts", TimestampType), StructField("country", StringType),
      StructField("amount", LongType))))
    val attrs = schema.columns.map(c => AttributeReference(c.name, c.dataType)())
    val mz = AttributeReference("mz", TimestampType, nullable = false)()
    val parsed = spark.sessionState.sqlParser.parseExpression(Predicate.replace("mz_now()", "mz"))
    val analyzed = spark.sessionState.analyzer.executeAndCheck(
      Filter(parsed, LocalRelation(attrs :+ mz)), new QueryPlanningTracker)
    val condition: Expression = ReplaceExpressions(analyzed).asInstanceOf[Filter].condition
      .transform { case a: AttributeReference if a.exprId == mz.exprId => MzNow() }

    val parts = sizes.max
    val start = 1.7e15.toLong
    val countries = Array("AR", "BR", "DE", "FR", "IN", "JP", "US", "ZA").map(UTF8String.fromString)
    val stats = Array.tabulate(parts) { i =>
      val lo = start + i * 3600L * 1000000L
      val c = i % (countries.length - 1)
      PartStats(1000, 1 << 20, Map(
        1 -> ColumnStats(0, Some(lo), Some(lo + 3599L * 1000000L)),
        2 -> ColumnStats(i % 3, Some(countries(c)), Some(countries(c + 1))),
        3 -> ColumnStats(0, Some(0L), Some(1000L))))
    }
    val asOf = start + parts * 3600L * 1000000L
    val filters = Seq(false, true).map { vectorized =>
      vectorized -> PartFilter.compile(condition, AttributeMap(attrs.zip(schema.columns.map(_.id))),
        schema, MzNowSpec.at(asOf), vectorized = vectorized)
    }

    println(s"condition: ${condition.sql}")
    val interpreted = filters.head._2
    println(s"first part: ${interpreted.spec(stats(0))}, last part: ${interpreted.spec(stats(parts - 1))}")

    def decide(filter: PartFilter, n: Int): Int = {
      var kept = 0
      var i = 0
      while (i < n) { if (filter.keep(stats(i))) kept += 1; i += 1 }
      kept
    }
    // By position, as a scan decides its parts.
    def decideInParallel(filter: PartFilter, n: Int): Int =
      n - PartDecisions.decide(n, i => filter.decide(stats(i)), parallelFrom = 1).ruledOut.cardinality
    for ((_, f) <- filters; _ <- 1 to 20) { decide(f, parts); decideInParallel(f, parts) } // warm-up
    sizes.flatMap { n =>
      val timed = Bench.rounds(Runs) { _ =>
        filters.flatMap { case (v, f) => Seq((v, false) -> Bench.timedMs(decide(f, n)), (v, true) -> Bench.timedMs(decideInParallel(f, n))) }
      }
      val kept = timed.values.flatten.map(_._1).toSet
      assert(kept.size == 1, s"the decisions keep different counts of $n parts: $kept")
      filters.map { case (v, _) =>
        def medianNanos(parallel: Boolean) = (Bench.median(timed((v, parallel)).map(_._2)) * 1e6).toLong
        Decision(n, kept.head, medianNanos(false), medianNanos(true), vectorized = v)
      }
    }
  }

  private def soundness(predicates: Int, seed: Long): Unit = {
    val spark = session()
    val check = new SoundnessCheck(spark)
    var failed = false
    for (ansi <- Seq(true, false)) {
      val t0 = System.nanoTime()
      val t = soundnessRun(check, ansi, seed)(_.predicates >= predicates)
      t.violations.take(5).foreach(println)
      println(f"ansi=$ansi%-5s predicates=${t.predicates} analyzed=${t.analyzed} checks=${t.checked} " +
        f"pruned=${t.pruned}/${t.predicates * SoundnessGen.PartsPerCase} violations=${t.violations.size} " +
        f"(${(System.nanoTime() - t0) / 1e9}%.1f s)")
      failed ||= t.violations.nonEmpty
    }
    spark.stop()
    if (failed) sys.exit(1)
  }

  private def truth(checks: Long, seed: Long): Unit = {
    val spark = session()
    val check = new DecisionCheck(spark)
    val cases = Gen.frequency(1 -> SoundnessGen.sample, 1 -> VectorFilterSuite.sample)
    var failed = false
    for (ansi <- Seq(true, false)) {
      val t0 = System.nanoTime()
      var rng = Seed(seed)
      var predicates = 0
      val total = new DecisionCheck.Tally
      while (total.checked < checks) {
        total.add(check.check(cases.pureApply(Gen.Parameters.default, rng), ansi))
        rng = rng.next
        predicates += 1
      }
      total.violations.take(5).foreach(println)
      println(f"ansi=$ansi%-5s predicates=$predicates $total violations=${total.violations.size} " +
        f"(${(System.nanoTime() - t0) / 1e9}%.1f s)")
      failed ||= total.violations.nonEmpty
    }
    spark.stop()
    if (failed) sys.exit(1)
  }

  /** What a soundness run checked: cases, cases Spark analyzed, concrete checks, parts pruned, violations. */
  final case class SoundnessTotals(predicates: Int, analyzed: Int, checked: Long, pruned: Int, violations: Vector[String])

  /** The soundness cases of `seed`, checked in one ANSI mode until `done` says enough ran. */
  def soundnessRun(check: SoundnessCheck, ansi: Boolean, seed: Long)(done: SoundnessTotals => Boolean): SoundnessTotals = {
    var rng = Seed(seed)
    var t = SoundnessTotals(0, 0, 0L, 0, Vector.empty)
    while (!done(t)) {
      val c = SoundnessGen.sample.pureApply(Gen.Parameters.default, rng)
      rng = rng.next
      val outcome = check.check(c, ansi)
      t = SoundnessTotals(t.predicates + 1, t.analyzed + (if (outcome.analyzed) 1 else 0), t.checked + outcome.checked,
        t.pruned + outcome.pruned, t.violations ++ outcome.violations.headOption)
    }
    t
  }
}
