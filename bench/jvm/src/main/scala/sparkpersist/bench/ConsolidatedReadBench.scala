package sparkpersist.bench

import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.functions.{col, concat, lit}

import sparkpersist.PersistConf
import sparkpersist.bench.Bench.{arg, median, timedMs}
import sparkpersist.scan.PersistScan
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.ShardHandle
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Snapshot reads of a shard with retractions (pushdown off): `rows` inserts `(id, k, v)` written
 * in 4 batches, then a fifth batch retracting every fifth row (20%). The same
 * `SELECT count(*), sum(hash(id, k, v))` over
 *  - `ours, parallel`: the snapshot consolidated by key-range tasks (`read.consolidationTasks=0`:
 *    the session's parallelism);
 *  - `ours, one task`: one merge of every run (`read.consolidationTasks=1`, the read before
 *    parallel consolidation);
 *  - `Spark GROUP BY`: Spark consolidating the raw updates itself, `SELECT id, k, v FROM
 *    <shard>.updates GROUP BY id, k, v HAVING sum(diff) > 0` (a hash aggregate and a shuffle);
 *  - `ours, no order key`: a shard with the same updates and no order key (key ranges drawn on a
 *    column whose statistics separate the parts; each task consolidates its rows in memory).
 * Alternating rounds after a warm-up, median of `runs`, local[2]. `tasks` is the number of tasks
 * of the scan (for GROUP BY, of its scan stage); CPU is the process's (every task and thread),
 * which shows the work apart from how many cores the machine lent the run.
 *
 * `bench/runMain sparkpersist.bench.ConsolidatedReadBench [rows=10000000] [runs=3]`; prints a
 * table and writes bench/out/consolidated_read.json.
 */
object ConsolidatedReadBench {
  private val Batches = 4
  private val Query = "SELECT count(*), sum(hash(id, k, v)) FROM "

  final case class Run(result: String, tasks: Int, wallMs: Double, cpuMs: Double)

  def main(args: Array[String]): Unit = {
    val rows = arg(args, 0, 10000000L)(_.toLong)
    val runs = arg(args, 1, 3)(_.toInt)
    val root = Files.createTempDirectory("consolidated-read-bench").toFile
    val spark = Bench.persistSession("ConsolidatedReadBench", root,
      conf = Map(PersistConf.PushdownMode.key -> "off", "spark.sql.adaptive.enabled" -> "false",
        "spark.sql.shuffle.partitions" -> "2"))
    try {
      val store = sparkpersist.catalog.SessionShards.store(spark)
      val ordered = write(spark, store.create("ordered", ShardSchema.fromStruct(data(spark, 0, 1).schema, Seq("id"))), rows)
      val unordered = write(spark, store.create("unordered", ShardSchema.fromStruct(data(spark, 0, 1).schema)), rows)
      val systems: Seq[(String, () => Run)] = Seq(
        "ours, parallel" -> (() => ours(spark, "ordered", 0)),
        "ours, one task" -> (() => ours(spark, "ordered", 1)),
        "Spark GROUP BY" -> (() => groupBy(spark)),
        "ours, no order key" -> (() => ours(spark, "unordered", 0)))
      val measured = Bench.rounds(runs) { r =>
        val order = systems.drop(r % systems.size) ++ systems.take(r % systems.size)
        order.map { case (name, run) => name -> run() }
      }
      val results = systems.map { case (name, _) =>
        val rs = measured(name)
        name -> rs.head.copy(wallMs = median(rs.map(_.wallMs)), cpuMs = median(rs.map(_.cpuMs)))
      }
      val distinct = results.map(_._2.result).distinct
      require(distinct.size == 1, s"the reads disagree: $results")
      report(rows, runs, results, Seq(ordered, unordered).map(_.state.partCount))
    } finally {
      spark.stop()
      FileUtils.deleteDirectory(root)
    }
  }

  private def data(spark: SparkSession, from: Long, until: Long): DataFrame =
    spark.range(from, until, 1, 2).select(col("id"),
      concat(lit("key-"), (col("id") % 1000).cast("string")).as("k"), (col("id") * 0.5).as("v"))

  /** The inserts in [[Batches]] batches at times 0..3, then every fifth row retracted at time 4. */
  private def write(spark: SparkSession, shard: ShardHandle, rows: Long): ShardHandle = {
    val step = rows / Batches
    val options = WriteOptions(Some("time"), Some("diff"))
    val (_, ms) = timedMs {
      (0 until Batches).foreach { b =>
        ShardWriter.write(data(spark, b * step, (b + 1) * step).withColumn("time", lit(b.toLong))
          .withColumn("diff", lit(1L)), shard, options)
      }
      ShardWriter.write(data(spark, 0, Batches * step).where(col("id") % 5 === 0)
        .withColumn("time", lit(Batches.toLong)).withColumn("diff", lit(-1L)), shard, options)
    }
    println(f"${shard.name}: ${shard.state.partCount} parts written in ${ms / 1e3}%.1f s")
    shard
  }

  private def ours(spark: SparkSession, shard: String, tasks: Int): Run = {
    spark.conf.set(PersistConf.ConsolidationTasks.key, tasks.toString)
    timed(spark.sql(Query + s"persist.$shard"))
  }

  private def groupBy(spark: SparkSession): Run =
    timed(spark.sql(Query + "(SELECT id, k, v FROM persist.ordered.updates GROUP BY id, k, v HAVING sum(diff) > 0)"))

  /** Runs `df`: its result, the tasks of its persist scan, wall and process CPU time. */
  private def timed(df: DataFrame): Run = {
    val (rows, ms, cpuMs) = Bench.timedWithCpuMs(df.collect())
    val scan = df.queryExecution.executedPlan.collectFirst { case b: BatchScanExec => b }.get
    require(scan.scan.isInstanceOf[PersistScan])
    Run(rows.head.toString, scan.inputRDD.getNumPartitions, ms, cpuMs)
  }

  private def report(rows: Long, runs: Int, results: Seq[(String, Run)], parts: Seq[Int]): Unit = {
    import Table.Column
    val parallel = results.head._2.wallMs
    val table = Table(s"Snapshot of $rows inserts with 20% retracted (${parts.head} parts), pushdown off, local[2], " +
      s"median of $runs alternating runs after a warm-up",
      Seq(Column("read", "read"), Column("tasks", "tasks"), Column("wall ms", "wallMs"),
        Column("time / ours, parallel", "timeRatio", 2), Column("CPU ms", "cpuMs")),
      results.map { case (name, r) => Seq[Any](name, r.tasks, r.wallMs, r.wallMs / parallel, r.cpuMs) },
      Seq(s"result (count, sum of hashes): ${results.head._2.result}; parts: ordered ${parts.head}, unordered ${parts(1)}"))
    table.print()
    BenchOutput.write("consolidated_read.json", "consolidated_read", Seq("rows" -> rows, "runs" -> runs), table)
  }
}
