package sparkpersist.bench

import java.nio.file.Files

import org.apache.commons.io.FileUtils

import sparkpersist.bench.Bench.{PersistRun, arg, medianRun, runPersist}

/**
 * A 1% time window over a shard of `parts` parts with temporal locality (part i holds the
 * events of hour i), queried with pushdown `on` and `off` in one run, alternating, median of
 * `runs`. Reports wall time, parts and bytes read, the planning time (Spark's own tracker:
 * analysis, optimization — where the rule runs — and planning, where the scan decides its
 * parts) and the part decision alone, in each mode. Parts are packed into tasks by
 * spark.sql.files.maxPartitionBytes, as a file scan would.
 *
 * `bench/runMain sparkpersist.bench.PruningBench [parts=1000] [rowsPerPart=2000] [runs=7]`;
 * prints a table and writes bench/out/pruning.json.
 */
object PruningBench {
  private val HourMs = 3600000L
  private val Start = 1767225600000L

  def main(args: Array[String]): Unit = {
    val parts = arg(args, 0, 1000)(_.toInt)
    val rowsPerPart = arg(args, 1, 2000)(_.toInt)
    val runs = arg(args, 2, 7)(_.toInt)
    val root = Files.createTempDirectory("pruning-bench").toFile
    val spark = Bench.persistSession("PruningBench", root)
    try {
      Bench.writeEvents(spark, "events", parts, rowsPerPart, Start, HourMs, Start + parts * HourMs)
      val windowHours = math.max(1, parts / 100)
      val query = s"SELECT count(*), sum(amount) FROM persist.events " +
        s"WHERE mz_now() <= event_ts + INTERVAL $windowHours HOURS"
      val byMode = Bench.rounds(runs)(_ => Seq("on", "off").map(mode => mode -> runPersist(spark, query, mode)))
        .map { case (mode, rs) => mode -> medianRun(rs) }
      val table = report(byMode("on"), byMode("off"), parts, runs, query)
      table.print()
      BenchOutput.write("pruning.json", "pruning",
        Seq("parts" -> parts, "rowsPerPart" -> rowsPerPart, "runs" -> runs, "query" -> query), table)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  private def report(on: PersistRun, off: PersistRun, parts: Int, runs: Int, query: String): Table = {
    import Table.Column
    Table(s"$query  ($parts parts, median of $runs alternating runs after a warm-up)",
      Seq(Column("pushdown", "pushdown"), Column("rows", "rows"), Column("parts read", "parts"),
        Column("MB read", "mbRead", 2), Column("wall ms", "wallMs"), Column("planning ms", "planningMs"),
        Column("pruning ms", "pruningMs", 2)),
      Seq("on" -> on, "off" -> off).map { case (mode, m) =>
        Seq[Any](mode, m.result.toLong, s"${m.partsRead}/${m.partsTotal}", m.bytesRead / 1e6, m.wallMs,
          m.planningMs, m.pruningMs)
      },
      Seq(f"on/off: wall ${on.wallMs / off.wallMs}%.3f, bytes ${on.bytesRead.toDouble / off.bytesRead}%.3f, " +
        f"planning +${on.planningMs - off.planningMs}%.1f ms"))
  }
}
