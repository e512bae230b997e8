package sparkpersist.bench

import java.nio.file.Files

import sparkpersist.roundtrip.{Coverage, RoundTripOutcome, RoundTripRun}

/**
 * The round-trip property of `RoundTripPropertySuite` (issues 20 and 29), at length: `schemas`
 * random shards of seed `seed`, each written in 2-4 batches of their own nullability, column and
 * struct field order (3 on average) and read back under random session settings and checked
 * value for value, stats against their part files, and `filters` random filters per shard in
 * every pushdown mode; then `schemas / 10` schemas holding a type no part can store, which must be
 * refused. Unlike the suite it runs with Spark's code generation on, as users do.
 *
 * Prints a table of counts and writes bench/out/roundtrip_soak.json; exits with status 1 on any
 * mismatch, after printing them (each names its seed and shard index; the shards that mismatched
 * are kept under the printed root). `-Dsparkpersist.roundtrip.seed=N` in the suite reruns a seed.
 *
 * Usage: bench/runMain sparkpersist.bench.RoundTripSoak [schemas=1000] [seed=1] [filters=8]
 */
object RoundTripSoak {

  def main(args: Array[String]): Unit = {
    val schemas = Bench.arg(args, 0, 1000)(_.toInt)
    val seed = Bench.arg(args, 1, 1L)(_.toLong)
    val filters = Bench.arg(args, 2, 8)(_.toInt)
    val root = Files.createTempDirectory("roundtrip-soak").toFile
    val spark = Bench.persistSession("RoundTripSoak", root)
    println(s"RoundTripSoak: $schemas schemas of seed $seed, $filters filters each, shards under $root")
    val ((outcome, cpuMs), wallMs) = Bench.timedMs {
      val cpuStart = Bench.processCpuMs()
      val o = RoundTripRun(spark, seed, schemas, filters, refusals = schemas / 10, progress = progress(schemas))
      (o, Bench.processCpuMs() - cpuStart)
    }
    spark.stop()

    val table = Table(s"Round trip soak: $schemas random schemas, seed $seed",
      Seq(Table.Column("schemas", "schemas"), Table.Column("batches", "batches"), Table.Column("rows", "rows"), Table.Column("columns checked", "columns"),
        Table.Column("values compared", "values"), Table.Column("stats checked", "stats"),
        Table.Column("filters checked", "filters"), Table.Column("parts", "parts"), Table.Column("parts pruned", "partsPruned"),
        Table.Column("refusals", "refusals"), Table.Column("mismatches", "mismatches"), Table.Column("minutes", "minutes")),
      Seq(Seq[Any](outcome.schemas, outcome.batches, outcome.rows, outcome.columns, outcome.values, outcome.stats, outcome.predicates,
        outcome.parts, outcome.partsPruned, outcome.refusals, outcome.mismatchCount,
        wallMs / 60000)),
      Seq(f"Each filter runs with pushdown on, soft (failing on violations) and off; ${cpuMs / 60000}%.1f CPU minutes.",
        (Coverage.Expected -- outcome.features).toSeq.sorted match {
          case Seq() => "Every feature the generator aims at occurred (NaN, -0.0, 38-digit decimals, non-BMP text, ...)."
          case missing => s"Features that did not occur: ${missing.mkString(", ")}"
        }))
    table.print()
    BenchOutput.write("roundtrip_soak.json", "roundtrip_soak", Seq("schemas" -> schemas, "seed" -> seed,
      "filters" -> filters), table)
    if (outcome.mismatches.nonEmpty) {
      println(outcome.mismatches.take(200).mkString("\n"))
      sys.exit(1)
    }
  }

  private def progress(schemas: Int)(i: Int, sum: RoundTripOutcome): Unit =
    if ((i + 1) % 50 == 0 || i + 1 == schemas) println(s"  ${i + 1}/$schemas: ${sum.summary}")
}
