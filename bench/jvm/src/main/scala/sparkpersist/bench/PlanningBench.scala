package sparkpersist.bench

import sparkpersist.bench.Bench.{arg, intList}

/**
 * What planning a query costs as a shard grows: the part decision for
 * [[InterpretBench.Predicate]] over 1k to 1M parts, one by one and in parallel over the
 * machine's cores (targets: at most 1 µs per part one by one; 1M parts in at most 200 ms), and
 * the cold open of a shard of that many parts ([[OpenShardBench]]), which a fresh driver pays
 * before it can decide anything, with columnar rollups (as written) and with the JSON rollups of
 * the release before, in the same run (target: 1M parts in at most 2 s), and the first decisions
 * on the opened state.
 *
 * `bench/runMain sparkpersist.bench.PlanningBench [sizes=1000,10000,100000,1000000]`; prints a
 * table and writes bench/out/planning.json.
 */
object PlanningBench {
  private val TargetNanosPerPart = 1000.0
  private val TargetMillionDecideMs = 200.0
  private val TargetMillionOpenMs = 2000.0

  def main(args: Array[String]): Unit = {
    val sizes = arg(args, 0, Seq(1000, 10000, 100000, 1000000))(intList)
    val spark = InterpretBench.session()
    val (vectorized, interpreted) = (try InterpretBench.decisionTimes(spark, sizes) finally spark.stop()).partition(_.vectorized)
    val decisions = vectorized.sortBy(_.parts)
    val interpretedBy = interpreted.map(d => d.parts -> d).toMap
    val opens = OpenShardBench.measureAll(sizes).groupBy(_.parts)
    import Table.Column
    def ways(r: OpenShardBench.Row, filter: String, vectorized: Boolean) =
      r.decideMs(OpenShardBench.Way(filter, parallel = true, vectorized = vectorized))
    val rows = decisions.map { d =>
      val i = interpretedBy(d.parts)
      val (columnar, json) = (opens(d.parts).find(_.format == "columnar").get, opens(d.parts).find(_.format == "json").get)
      Seq[Any](d.parts, d.kept, d.medianNanos / 1e6, d.parallelMedianNanos / 1e6, d.nanosPerPart,
        i.medianNanos / 1e6, i.parallelMedianNanos / 1e6, i.parallelMedianNanos.toDouble / d.parallelMedianNanos,
        columnar.medianOpenMs, json.medianOpenMs, json.medianOpenMs / columnar.medianOpenMs,
        columnar.medianOpenCpuMs, columnar.bytesReadOnOpen / 1e6, json.bytesReadOnOpen / 1e6,
        columnar.skippedDecideMs, columnar.keptDecideMs, columnar.skippedParallelMs, columnar.keptParallelMs,
        ways(columnar, "score", vectorized = false), ways(columnar, "score", vectorized = false) / columnar.keptParallelMs,
        json.keptParallelMs, ways(json, "score", vectorized = false))
    }
    val worst = decisions.map(_.nanosPerPart).max
    // Each target is checked at 1M parts, or extrapolated linearly from the largest size run.
    val largest = decisions.maxBy(_.parts)
    val perMillion = 1e6 / largest.parts
    val decideMs = largest.parallelMedianNanos / 1e6 * perMillion
    val largestColumnar = opens(largest.parts).find(_.format == "columnar").get
    val openMs = largestColumnar.medianOpenMs * perMillion
    val rollupDecideMs = largestColumnar.keptParallelMs * perMillion
    def verdict(ok: Boolean) = if (ok) "met" else "missed"
    val scope = if (largest.parts == 1000000) "at 1M parts" else s"extrapolated from ${largest.parts} parts"
    val table = Table(s"Planning overhead: part decision for ${InterpretBench.Predicate} over heap stats, vectorized " +
      s"(as scans decide) and interpreted, side by side (median of ${InterpretBench.Runs}); cold shard open, " +
      s"columnar vs JSON rollups (median of ${OpenShardBench.Opens}, 100 parts per batch), with the first " +
      "decisions on the opened state",
      Seq(Column("parts", "parts"), Column("kept", "kept"), Column("decide ms", "decideMs", 3),
        Column("parallel ms", "parallelDecideMs", 3), Column("ns/part", "nsPerPart"),
        Column("interp. ms", "interpretedDecideMs", 3), Column("interp. parallel ms", "interpretedParallelDecideMs", 3),
        Column("interp. ÷ vectorized ∥", "decideRatio", 2),
        Column("open ms", "openMs"), Column("JSON open ms", "jsonOpenMs"), Column("JSON/columnar", "openRatio", 2),
        Column("open cpu ms", "openCpuMs"), Column("state read MB", "stateReadMB", 2),
        Column("JSON read MB", "jsonStateReadMB", 2),
        Column("1st id ms", "firstSkippedDecideMs", 2), Column("1st score ms", "firstKeptDecideMs", 2),
        Column("1st id ms ∥", "firstSkippedParallelMs", 2), Column("1st score ms ∥", "firstKeptParallelMs", 2),
        Column("interp. 1st score ms ∥", "interpretedFirstKeptParallelMs", 2),
        Column("interp. ÷ vectorized 1st score ∥", "firstKeptRatio", 2),
        Column("JSON 1st score ms ∥", "jsonFirstKeptParallelMs", 2),
        Column("JSON interp. 1st score ms ∥", "jsonInterpretedFirstKeptParallelMs", 2)),
      rows,
      Seq(f"target: decision <= ${TargetNanosPerPart / 1000}%.0f µs per part: worst $worst%.0f ns/part " +
        s"(${verdict(worst <= TargetNanosPerPart)})",
        f"target: decide 1M parts <= $TargetMillionDecideMs%.0f ms in parallel (heap stats): $decideMs%.0f ms $scope " +
          s"(${verdict(decideMs <= TargetMillionDecideMs)}; ${Runtime.getRuntime.availableProcessors} cores)",
        f"target: open 1M parts <= $TargetMillionOpenMs%.0f ms: $openMs%.0f ms $scope (${verdict(openMs <= TargetMillionOpenMs)})",
        f"target: decide every part of a fresh 1M-part columnar rollup <= $TargetMillionDecideMs%.0f ms in parallel " +
          f"(1st score ms ∥): $rollupDecideMs%.0f ms $scope (${verdict(rollupDecideMs <= TargetMillionDecideMs)})",
        s"1st id / 1st score: the first decision of ${OpenShardBench.SkippedFilter.sql} / " +
          s"${OpenShardBench.KeptFilter.sql} on a freshly opened shard, one by one, and (∥) over the cores (OpenShardBench)",
        "the machine's load inflates wall times"))
    table.print()
    BenchOutput.write("planning.json", "planning",
      Seq("predicate" -> InterpretBench.Predicate, "targetNanosPerPart" -> TargetNanosPerPart,
        "targetMillionDecideMs" -> TargetMillionDecideMs, "targetMillionOpenMs" -> TargetMillionOpenMs), table)
  }
}
