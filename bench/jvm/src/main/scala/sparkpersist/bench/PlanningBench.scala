package sparkpersist.bench

import sparkpersist.bench.Bench.{arg, intList}

/**
 * What planning a query costs as a shard grows: the part decision for
 * [[InterpretBench.Predicate]] over 1k, 10k and 100k parts (target: at most 1 µs per part), and
 * the cold open of a shard of that many parts ([[OpenShardBench]]), which a fresh driver pays
 * before it can decide anything.
 *
 * `bench/runMain sparkpersist.bench.PlanningBench [sizes=1000,10000,100000]`; prints a table and
 * writes bench/out/planning.json.
 */
object PlanningBench {
  private val TargetNanosPerPart = 1000.0

  def main(args: Array[String]): Unit = {
    val sizes = arg(args, 0, Seq(1000, 10000, 100000))(intList)
    val spark = InterpretBench.session()
    val decisions = try InterpretBench.decisionTimes(spark, sizes) finally spark.stop()
    val opens = OpenShardBench.measureAll(sizes)
    import Table.Column
    val rows = decisions.zip(opens).map { case (d, o) =>
      Seq[Any](d.parts, d.kept, d.medianNanos / 1e6, d.nanosPerPart, o.medianOpenMs, o.medianOpenCpuMs,
        o.medianOpenMs * 1e3 / o.parts, o.bytesReadOnOpen / 1e6)
    }
    val worst = decisions.map(_.nanosPerPart).max
    val table = Table(s"Planning overhead: part decision for ${InterpretBench.Predicate} (median of " +
      s"${InterpretBench.Runs}) and cold shard open (median of ${OpenShardBench.Opens}, 100 parts per batch)",
      Seq(Column("parts", "parts"), Column("kept", "kept"), Column("decide ms", "decideMs", 3),
        Column("ns/part", "nsPerPart"), Column("open ms", "openMs"), Column("open cpu ms", "openCpuMs"),
        Column("open µs/part", "openMicrosPerPart", 2), Column("state read MB", "stateReadMB", 2)),
      rows,
      Seq(f"target: decision <= ${TargetNanosPerPart / 1000}%.0f µs per part: worst $worst%.0f ns/part " +
        s"(${if (worst <= TargetNanosPerPart) "met" else "missed"})"))
    table.print()
    BenchOutput.write("planning.json", "planning",
      Seq("predicate" -> InterpretBench.Predicate, "targetNanosPerPart" -> TargetNanosPerPart), table)
  }
}
