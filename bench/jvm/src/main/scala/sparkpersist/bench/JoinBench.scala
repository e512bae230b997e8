package sparkpersist.bench

import java.io.File
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec
import org.apache.spark.sql.functions.col

import sparkpersist.bench.Bench.{arg, median, timedWithCpuMs}
import sparkpersist.catalog.SessionShards
import sparkpersist.scan.ScanReports
import sparkpersist.schema.{NestedNullability, ShardSchema}
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * A star join (issue 30): a fact of `factRows` rows in `parts` parts ordered by its key `k`, joined
 * to a dimension of `dimKeys` rows filtered to 1 % of its keys (`category = 7`), on the same rows as
 * a persist shard pair, a Delta table pair and a plain Parquet pair (same files: partition i of the
 * fact holds the keys of part i). Ours gets its dimension's size from its statistics (so it is
 * broadcast) and skips, at run time, the fact parts whose `k` bounds hold no matching key; Delta and
 * Parquet read every fact file (neither prunes files by a join's keys on a column that is not a
 * partition column).
 *
 * Each system runs in one process, alternating, median of `runs` after a warm-up; results must
 * agree. Files read: our fact scan's report; Delta's and Parquet's fact `FileSourceScanExec`
 * "number of files read". AQE is off so the executed plan is the final one.
 *
 * `bench/runMain sparkpersist.bench.JoinBench [factRows=10000000] [parts=200] [dimKeys=1000] [runs=5]`.
 * Prints a table and writes bench/out/join.json (plot.py draws join.png).
 */
object JoinBench {
  private val Systems = Seq("ours", "delta", "parquet")

  final case class Run(result: String, factFiles: Long, broadcast: Boolean, wallMs: Double, cpuMs: Double)

  def main(args: Array[String]): Unit = {
    val factRows = arg(args, 0, 10000000L)(_.toLong)
    val parts = arg(args, 1, 200)(_.toInt)
    val dimKeys = arg(args, 2, 1000)(_.toInt)
    val runs = arg(args, 3, 5)(_.toInt)
    require(dimKeys >= 100 && factRows % parts == 0, "dimKeys >= 100, factRows a multiple of parts")
    val root = Files.createTempDirectory("join-bench").toFile
    val spark = Bench.persistAndDeltaSession("JoinBench", new File(root, "shards"),
      conf = Map(
        "spark.sql.adaptive.enabled" -> "false"))
    try {
      val (fact, dim) = (facts(spark, factRows, parts, dimKeys), dims(spark, dimKeys))
      val dirs = Map("delta" -> new File(root, "delta"), "parquet" -> new File(root, "parquet"))
      write(spark, fact, dim, dirs, factRows / parts)
      val tables = Map(
        "ours" -> ("persist.fact", "persist.dim"),
        "delta" -> (s"delta.`${dirs("delta")}/fact`", s"delta.`${dirs("delta")}/dim`"),
        "parquet" -> (s"parquet.`${dirs("parquet")}/fact`", s"parquet.`${dirs("parquet")}/dim`"))
      val holding = partsHoldingAMatch(spark)
      val measured = Bench.rounds(runs) { r =>
        val order = Systems.drop(r % Systems.size) ++ Systems.take(r % Systems.size)
        order.map(system => system -> run(spark, system, tables(system)._1, tables(system)._2))
      }.map { case (system, rs) => system -> rs.head.copy(wallMs = median(rs.map(_.wallMs)), cpuMs = median(rs.map(_.cpuMs))) }
      val table = report(measured, parts, holding, factRows, dimKeys, runs)
      table.print()
      BenchOutput.write("join.json", "join", Seq("factRows" -> factRows, "parts" -> parts, "dimKeys" -> dimKeys,
        "runs" -> runs, "partsHoldingAMatch" -> holding, "spark" -> spark.version), table)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  /** The fact: `k` rising with the row number, so partition i holds a narrow range of keys; `v` the row number. */
  private def facts(spark: SparkSession, rows: Long, parts: Int, keys: Int): DataFrame =
    spark.range(0L, rows, 1L, parts).select((col("id") * keys / rows).cast("bigint").as("k"), col("id").as("v"))

  /** The dimension: one row per key, `category = k % 100` (so `category = 7` keeps 1 % of the keys). */
  private def dims(spark: SparkSession, keys: Int): DataFrame =
    spark.range(keys).selectExpr("id AS k", "concat('name', id) AS name", "id % 100 AS category")

  private def write(spark: SparkSession, fact: DataFrame, dim: DataFrame, dirs: Map[String, File], rowsPerPart: Long): Unit = {
    val store = SessionShards.store(spark)
    val writes = Seq(
      "ours" -> (() => {
        ShardWriter.write(dim, store.create("dim", ShardSchema.fromStruct(NestedNullability.relaxedSchema(dim.schema))), WriteOptions())
        ShardWriter.write(fact, store.create("fact", ShardSchema.fromStruct(NestedNullability.relaxedSchema(fact.schema), Seq("k"))),
          WriteOptions(maxRowsPerPart = Some(rowsPerPart)))
      }),
      "delta" -> (() => {
        dim.write.format("delta").save(s"${dirs("delta")}/dim")
        fact.write.format("delta").save(s"${dirs("delta")}/fact")
      }),
      "parquet" -> (() => {
        dim.write.parquet(s"${dirs("parquet")}/dim")
        fact.write.parquet(s"${dirs("parquet")}/fact")
      }))
    writes.foreach { case (system, w) =>
      val (_, ms) = Bench.timedMs(w())
      println(f"$system%-8s written in ${ms / 1e3}%.1f s")
    }
  }

  /** The fact parts whose `k` bounds hold a key of category 7: the fewest parts a read by key can read. */
  private def partsHoldingAMatch(spark: SparkSession): Int = {
    val state = SessionShards.store(spark).open("fact").state
    val kId = state.schema.column("k").get.id
    state.parts.count { p =>
      val k = p.stats.get.columns(kId)
      val (lo, hi) = (k.lower.get.asInstanceOf[Long], k.upper.get.asInstanceOf[Long])
      (lo to hi).exists(_ % 100 == 7)
    }
  }

  private def run(spark: SparkSession, system: String, fact: String, dim: String): Run = {
    val df = spark.sql(s"SELECT count(*), sum(f.v) FROM $fact f JOIN $dim d ON f.k = d.k WHERE d.category = 7")
    val (rows, wallMs, cpuMs) = timedWithCpuMs(df.collect())
    val plan = df.queryExecution.executedPlan
    val broadcast = plan.collect { case j: BroadcastHashJoinExec => j }.nonEmpty
    val factFiles = if (system == "ours") {
      ScanReports.last(spark).find(_.shard == "fact").map(_.metrics.partsKept)
        .getOrElse(throw new IllegalStateException(s"no scan of the fact shard:\n$plan"))
    } else {
      plan.collect { case s: FileSourceScanExec if s.relation.location.rootPaths.exists(_.toString.endsWith("fact")) => s }
        .map(_.metrics("numFiles").value).sum
    }
    Run(s"${rows.head.get(0)}/${rows.head.get(1)}", factFiles, broadcast, wallMs, cpuMs)
  }

  private def report(measured: Map[String, Run], parts: Int, holding: Int, factRows: Long, dimKeys: Int,
      runs: Int): Table = {
    import Table.Column
    val ours = measured("ours")
    val rows = Systems.map { system =>
      val r = measured(system)
      require(r.result == ours.result, s"$system answered ${r.result}, ours ${ours.result}")
      Seq[Any](system, r.result, r.broadcast.toString, s"${r.factFiles}/$parts", r.factFiles.toDouble / holding,
        r.wallMs, r.wallMs / ours.wallMs, r.cpuMs, r.cpuMs / ours.cpuMs)
    }
    Table(s"Star join: $factRows fact rows in $parts parts ordered by key, $dimKeys dimension rows filtered to 1 % " +
      s"of keys; local[2], median of $runs alternating runs after a warm-up",
      Seq(Column("system", "system"), Column("count/sum", "result"), Column("dimension broadcast", "broadcast"),
        Column("fact files read", "files"), Column("files / parts holding a key", "filesPerHolding", 2),
        Column("wall ms", "wallMs"), Column("time / ours", "timeRatio", 2), Column("CPU ms", "cpuMs"),
        Column("CPU / ours", "cpuRatio", 2)),
      rows,
      Seq(s"$holding fact parts hold a key of the filtered dimension rows (by their k bounds).",
        "ours: the persist scan's parts read after runtime filtering; delta / parquet: FileSourceScanExec 'number of files read'."))
  }
}
