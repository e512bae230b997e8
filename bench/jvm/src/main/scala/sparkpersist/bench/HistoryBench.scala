package sparkpersist.bench

import sparkpersist.bench.Bench.runPersist
import sparkpersist.bench.HistoryScenario.Window

/**
 * Does the cost of a recent window stay bounded as history grows? The shards of
 * [[HistoryScenario]] (1×…10× a base history, one part per day), each queried with
 * `SELECT count(*), sum(amount) ... WHERE mz_now() <= event_ts + INTERVAL 7 DAYS`, pushdown on and
 * off. Target: with pushdown on, the 10× shard costs at most 1.2× the 1× shard.
 *
 * `bench/runMain sparkpersist.bench.HistoryBench [days=60] [rowsPerPart=5000] [runs=7] [multiples=1,2,5,10]`;
 * prints a table and writes bench/out/history.json.
 */
object HistoryBench {
  def main(args: Array[String]): Unit =
    HistoryScenario.run("HistoryBench", "history", s"${HistoryScenario.WindowDays}-day mz_now() window", args) {
      (spark, shard, mode) => runPersist(spark, s"SELECT count(*), sum(amount) FROM persist.$shard WHERE $Window", mode)
    }
}
