package sparkpersist.bench

import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{count, lit, sum}
import org.apache.spark.sql.streaming.Trigger

import sparkpersist.PersistConf
import sparkpersist.bench.Bench.{PersistRun, processCpuMs, timedMs}
import sparkpersist.scan.{ScanReport, ScanReports}

/**
 * Is the restart of a continuous query bounded by its temporal filter, not by the history? The
 * shards of [[HistoryScenario]] (1×, 2×, 5× and 10× a base history of `days` days, one part per day
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
  def main(args: Array[String]): Unit =
    HistoryScenario.run("RestartBench", "restart",
      s"Restart of a streaming query with a ${HistoryScenario.WindowDays}-day mz_now() window, first micro-batch " +
        "from an empty checkpoint,", args)((spark, shard, mode) => restart(spark, s"persist.$shard", mode))

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
        val q = spark.readStream.table(table).where(HistoryScenario.Window).writeStream
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
}
