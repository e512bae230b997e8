package sparkpersist.bench

import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.SparkSession

import sparkpersist.bench.Bench.{PersistRun, arg, intList, medianRun}

/**
 * The scenario of [[HistoryBench]] and [[RestartBench]]: shards holding 1×, 2×, 5× and 10× a base
 * history of `days` days, one part of `rowsPerPart` rows per day (the part size is the same at
 * every size), the newest events at [[End]], each read through the 7-day window [[Window]] with
 * pushdown on and off. All sizes and both modes run in one process, alternating, median of
 * `runs`. Target: with pushdown on, the largest history costs at most 1.2× the smallest (wall
 * time; CPU and bytes read are reported beside it).
 *
 * Arguments: `[days=60] [rowsPerPart=5000] [runs=7] [multiples=1,2,5,10]`.
 */
object HistoryScenario {
  val DayMs = 86400000L
  /** 2026-01-01T00:00:00Z: the newest event, and the time of the batch. */
  val End = 1767225600000L
  val WindowDays = 7
  val Window = s"mz_now() <= event_ts + INTERVAL $WindowDays DAYS"
  private val Target = 1.2
  private val Modes = Seq("on", "off")

  /**
   * Writes the shards `history_<multiple>`, measures `read(spark, shard, mode)` for each, prints
   * the table titled `what` and writes it to bench/out/`<json>`.json.
   */
  def run(name: String, json: String, what: String, args: Array[String])(
      read: (SparkSession, String, String) => PersistRun): Unit = {
    val days = arg(args, 0, 60)(_.toInt)
    val rowsPerPart = arg(args, 1, 5000)(_.toInt)
    val runs = arg(args, 2, 7)(_.toInt)
    val multiples = arg(args, 3, Seq(1, 2, 5, 10))(intList)
    val root = Files.createTempDirectory(json).toFile
    val spark = Bench.persistSession(name, root)
    try {
      multiples.foreach(m => Bench.writeEvents(spark, s"history_$m", days * m, rowsPerPart,
        End - days * m * DayMs, DayMs, End))
      val measured = Bench.rounds(runs) { _ =>
        for (m <- multiples; mode <- Modes) yield (m, mode) -> read(spark, s"history_$m", mode)
      }.map { case (key, rs) => key -> medianRun(rs) }
      val table = report(what, measured, multiples, days, rowsPerPart, runs)
      table.print()
      BenchOutput.write(s"$json.json", json,
        Seq("baseDays" -> days, "rowsPerPart" -> rowsPerPart, "runs" -> runs, "windowDays" -> WindowDays,
          "target" -> Target, "filter" -> Window), table)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  private def report(what: String, measured: Map[(Int, String), PersistRun], multiples: Seq[Int], days: Int,
      rowsPerPart: Int, runs: Int): Table = {
    import Table.Column
    val base = measured((multiples.head, "on"))
    val rows = for (m <- multiples; mode <- Modes) yield {
      val r = measured((m, mode))
      Seq[Any](s"${m}x", m * days, mode, r.result.toLong, s"${r.partsRead}/${r.partsTotal}", r.bytesRead / 1e6,
        r.wallMs, r.cpuMs, r.planningMs, r.pruningMs, r.wallMs / base.wallMs, r.cpuMs / base.cpuMs,
        r.bytesRead.toDouble / base.bytesRead)
    }
    val (top, topOff) = (measured((multiples.last, "on")), measured((multiples.last, "off")))
    val ratio = top.wallMs / base.wallMs
    val verdict = if (ratio <= Target) "met" else "missed"
    Table(s"$what as history grows (${days}-day base, one part of $rowsPerPart rows per day, local[2], " +
      s"median of $runs alternating runs after a warm-up)",
      Seq(Column("history", "history"), Column("days", "days"), Column("pushdown", "pushdown"),
        Column("rows", "rows"), Column("parts read", "parts"), Column("MB read", "mbRead", 2),
        Column("wall ms", "wallMs"), Column("cpu ms", "cpuMs"), Column("planning ms", "planningMs"),
        Column("pruning ms", "pruningMs", 2), Column("wall / 1x on", "wallRatio", 2),
        Column("cpu / 1x on", "cpuRatio", 2), Column("bytes / 1x on", "bytesRatio", 2)),
      rows,
      Seq(f"target: pushdown on, ${multiples.last}x history <= $Target%.1fx the ${multiples.head}x wall time: " +
        f"$ratio%.2fx ($verdict); process CPU ${top.cpuMs / base.cpuMs}%.2fx; bytes read " +
        f"${top.bytesRead.toDouble / base.bytesRead}%.2fx",
        f"pushdown off / on at ${multiples.last}x: wall ${topOff.wallMs / top.wallMs}%.2fx, bytes " +
          f"${topOff.bytesRead.toDouble / top.bytesRead}%.2fx"))
  }
}
