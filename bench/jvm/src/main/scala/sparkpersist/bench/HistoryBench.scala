package sparkpersist.bench

import java.nio.file.Files

import org.apache.commons.io.FileUtils

import sparkpersist.bench.Bench.{PersistRun, arg, intList, medianRun, runPersist}

/**
 * Does the cost of a recent window stay bounded as history grows? Shards holding 1×, 2×, 5× and
 * 10× a base history of `days` days, one part per day (`rowsPerPart` rows each, so the part size
 * is the same at every size), each queried with the 7-day window
 * `mz_now() <= event_ts + INTERVAL 7 DAYS` with pushdown on and off. All sizes and both modes run
 * in one process, alternating, median of `runs`. Target: with pushdown on, the 10× shard costs
 * at most 1.2× the 1× shard (wall time; bytes read are reported beside it).
 *
 * `bench/runMain sparkpersist.bench.HistoryBench [days=60] [rowsPerPart=5000] [runs=7] [multiples=1,2,5,10]`;
 * prints a table and writes bench/out/history.json.
 */
object HistoryBench {
  private val DayMs = 86400000L
  private val End = 1767225600000L // 2026-01-01T00:00:00Z: the newest event, and the batch's time
  private val WindowDays = 7
  private val Target = 1.2

  def main(args: Array[String]): Unit = {
    val days = arg(args, 0, 60)(_.toInt)
    val rowsPerPart = arg(args, 1, 5000)(_.toInt)
    val runs = arg(args, 2, 7)(_.toInt)
    val multiples = arg(args, 3, Seq(1, 2, 5, 10))(intList)
    val root = Files.createTempDirectory("history-bench").toFile
    val spark = Bench.persistSession("HistoryBench", root)
    try {
      multiples.foreach(m => Bench.writeEvents(spark, s"history_$m", days * m, rowsPerPart,
        End - days * m * DayMs, DayMs, End))
      val modes = Seq("on", "off")
      val measured = Bench.rounds(runs) { _ =>
        for (m <- multiples; mode <- modes) yield (m, mode) -> runPersist(spark, query(m), mode)
      }.map { case (key, rs) => key -> medianRun(rs) }
      val table = report(measured, multiples, modes, days, rowsPerPart, runs)
      table.print()
      BenchOutput.write("history.json", "history",
        Seq("baseDays" -> days, "rowsPerPart" -> rowsPerPart, "runs" -> runs, "windowDays" -> WindowDays,
          "target" -> Target, "query" -> query(1)), table)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  private def query(multiple: Int): String =
    s"SELECT count(*), sum(amount) FROM persist.history_$multiple WHERE mz_now() <= event_ts + INTERVAL $WindowDays DAYS"

  private def report(measured: Map[(Int, String), PersistRun], multiples: Seq[Int], modes: Seq[String],
      days: Int, rowsPerPart: Int, runs: Int): Table = {
    import Table.Column
    val base = measured((multiples.head, "on"))
    val rows = for (m <- multiples; mode <- modes) yield {
      val r = measured((m, mode))
      Seq[Any](s"${m}x", m * days, mode, r.result.toLong, s"${r.partsRead}/${r.partsTotal}", r.bytesRead / 1e6,
        r.wallMs, r.cpuMs, r.planningMs, r.pruningMs, r.wallMs / base.wallMs, r.cpuMs / base.cpuMs,
        r.bytesRead.toDouble / base.bytesRead)
    }
    val top = measured((multiples.last, "on"))
    val ratio = top.wallMs / base.wallMs
    val verdict = if (ratio <= Target) "met" else "missed"
    Table(s"$WindowDays-day mz_now() window as history grows (${days}-day base, one part of $rowsPerPart rows per day, " +
      s"local[2], median of $runs alternating runs after a warm-up)",
      Seq(Column("history", "history"), Column("days", "days"), Column("pushdown", "pushdown"),
        Column("rows", "rows"), Column("parts read", "parts"), Column("MB read", "mbRead", 2),
        Column("wall ms", "wallMs"), Column("cpu ms", "cpuMs"), Column("planning ms", "planningMs"),
        Column("pruning ms", "pruningMs", 2), Column("wall / 1x on", "wallRatio", 2),
        Column("cpu / 1x on", "cpuRatio", 2), Column("bytes / 1x on", "bytesRatio", 2)),
      rows,
      Seq(f"target: pushdown on, ${multiples.last}x history <= $Target%.1fx the ${multiples.head}x wall time: " +
        f"$ratio%.2fx ($verdict); process CPU ${top.cpuMs / base.cpuMs}%.2fx; bytes read " +
        f"${top.bytesRead.toDouble / base.bytesRead}%.2fx"))
  }
}
