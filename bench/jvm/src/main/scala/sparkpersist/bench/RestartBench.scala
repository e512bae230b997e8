package sparkpersist.bench

import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{count, lit, sum}
import org.apache.spark.sql.streaming.Trigger

import sparkpersist.PersistConf
import sparkpersist.bench.Bench.{PersistRun, arg, intList, medianRun, processCpuMs, timedMs}
import sparkpersist.source.{ScanReport, ScanReports}

/**
 * Is the restart of a continuous query bounded by its temporal filter, not by the history? The
 * shards of [[HistoryBench]] (1×, 2×, 5× and 10× a base history of `days` days, one part per day
 * of `rowsPerPart` rows), each read by a streaming query with the 7-day window
 * `mz_now() <= event_ts + INTERVAL 7 DAYS` restarted from an empty checkpoint: its first
 * micro-batch, the snapshot as of the shard's latest time, is the restart's cost. Measured from
 * `start()` to the end of a `Trigger.AvailableNow` query (the snapshot is all there is to read),
 * with pushdown on and off, all sizes and both modes alternating, median of `runs`; the
 * micro-batch counts its rows and sums `amount` (`foreachBatch`). Target: with pushdown on, the
 * 10× restart costs at most 1.2× the 1× restart; the off/on ratio at 10× is reported.
 *
 * `bench/runMain sparkpersist.bench.RestartBench [days=60] [rowsPerPart=5000] [runs=7] [multiples=1,2,5,10]`;
 * prints a table and writes bench/out/restart.json.
 */
object RestartBench {
  private val DayMs = 86400000L
  private val End = 1767225600000L // 2026-01-01T00:00:00Z: the newest event, and the batch's time
  private val WindowDays = 7
  private val Target = 1.2
  private val Window = s"mz_now() <= event_ts + INTERVAL $WindowDays DAYS"

  def main(args: Array[String]): Unit = {
    val days = arg(args, 0, 60)(_.toInt)
    val rowsPerPart = arg(args, 1, 5000)(_.toInt)
    val runs = arg(args, 2, 7)(_.toInt)
    val multiples = arg(args, 3, Seq(1, 2, 5, 10))(intList)
    val root = Files.createTempDirectory("restart-bench").toFile
    val spark = Bench.persistSession("RestartBench", root)
    try {
      multiples.foreach(m => Bench.writeEvents(spark, s"history_$m", days * m, rowsPerPart,
        End - days * m * DayMs, DayMs, End))
      val modes = Seq("on", "off")
      val measured = Bench.rounds(runs) { _ =>
        for (m <- multiples; mode <- modes) yield (m, mode) -> restart(spark, s"persist.history_$m", mode)
      }.map { case (key, rs) => key -> medianRun(rs) }
      val table = report(measured, multiples, modes, days, rowsPerPart, runs)
      table.print()
      BenchOutput.write("restart.json", "restart",
        Seq("baseDays" -> days, "rowsPerPart" -> rowsPerPart, "runs" -> runs, "windowDays" -> WindowDays,
          "target" -> Target, "filter" -> Window), table)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  /**
   * Starts the windowed streaming query over `table` from an empty checkpoint with pushdown
   * `mode`, and runs it until its first micro-batch (the snapshot) is done. Its planning time is
   * the micro-batch's `queryPlanning`; pruning and bytes come from its scan.
   */
  private def restart(spark: SparkSession, table: String, mode: String): PersistRun = {
    spark.conf.set(PersistConf.PushdownMode.key, mode)
    val checkpoint = Files.createTempDirectory("restart-bench-checkpoint").toFile
    @volatile var seen: Option[(String, ScanReport)] = None
    val firstBatch: (DataFrame, Long) => Unit = (df, _) => {
      val row = df.agg(count(lit(1)), sum("amount")).head()
      val scan = ScanReports.last(df.sparkSession) match {
        case Seq(one) => one
        case other => throw new IllegalStateException(s"expected one persist scan of $table, got ${other.size}")
      }
      seen = Some(row.get(0).toString -> scan)
    }
    try {
      val cpuStart = processCpuMs()
      val (query, wallMs) = timedMs {
        val q = spark.readStream.table(table).where(Window).writeStream
          .option("checkpointLocation", checkpoint.getCanonicalPath)
          .trigger(Trigger.AvailableNow())
          .foreachBatch(firstBatch)
          .start()
        q.awaitTermination()
        q
      }
      val cpuMs = processCpuMs() - cpuStart
      val (rows, scan) = seen.getOrElse(throw new IllegalStateException(s"the restart of $table read no micro-batch"))
      require(query.recentProgress.count(_.numInputRows > 0) == 1, s"the restart of $table ran more than its snapshot")
      val planningMs = query.recentProgress.flatMap(p => Option(p.durationMs.get("queryPlanning"))).map(_.toDouble).sum
      val m = scan.metrics
      PersistRun(rows, m.partsKept, m.partsTotal, m.bytesKept, m.bytesTotal, wallMs, cpuMs, planningMs, m.pruningNanos / 1e6)
    } finally FileUtils.deleteQuietly(checkpoint)
  }

  private def report(measured: Map[(Int, String), PersistRun], multiples: Seq[Int], modes: Seq[String],
      days: Int, rowsPerPart: Int, runs: Int): Table = {
    import Table.Column
    val base = measured((multiples.head, "on"))
    val rows = for (m <- multiples; mode <- modes) yield {
      val r = measured((m, mode))
      Seq[Any](s"${m}x", m * days, mode, r.result.toLong, s"${r.partsRead}/${r.partsTotal}", r.bytesRead / 1e6,
        r.wallMs, r.cpuMs, r.planningMs, r.pruningMs, r.wallMs / base.wallMs, r.bytesRead.toDouble / base.bytesRead)
    }
    val top = measured((multiples.last, "on"))
    val topOff = measured((multiples.last, "off"))
    val ratio = top.wallMs / base.wallMs
    val verdict = if (ratio <= Target) "met" else "missed"
    Table(s"Restart of a streaming query with a $WindowDays-day mz_now() window, first micro-batch from an empty " +
      s"checkpoint, as history grows (${days}-day base, one part of $rowsPerPart rows per day, local[2], median of " +
      s"$runs alternating runs after a warm-up)",
      Seq(Column("history", "history"), Column("days", "days"), Column("pushdown", "pushdown"),
        Column("rows", "rows"), Column("parts read", "parts"), Column("MB read", "mbRead", 2),
        Column("wall ms", "wallMs"), Column("cpu ms", "cpuMs"), Column("planning ms", "planningMs"),
        Column("pruning ms", "pruningMs", 2), Column("wall / 1x on", "wallRatio", 2),
        Column("bytes / 1x on", "bytesRatio", 2)),
      rows,
      Seq(f"target: pushdown on, ${multiples.last}x history restarts in <= $Target%.1fx the ${multiples.head}x wall " +
        f"time: $ratio%.2fx ($verdict); bytes read ${top.bytesRead.toDouble / base.bytesRead}%.2fx",
        f"pushdown off / on at ${multiples.last}x: wall ${topOff.wallMs / top.wallMs}%.2fx, bytes " +
          f"${topOff.bytesRead.toDouble / top.bytesRead}%.2fx"))
  }
}
