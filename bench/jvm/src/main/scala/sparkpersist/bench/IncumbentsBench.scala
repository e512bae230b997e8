package sparkpersist.bench

import java.io.File
import java.nio.file.Files
import java.time.Instant
import java.time.temporal.ChronoUnit

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.functions.{col, expr, lit, timestamp_millis, when}

import sparkpersist.bench.Bench.{arg, median, runPersist, timedMs}
import sparkpersist.catalog.SessionShards
import sparkpersist.schema.{JsonColumns, ShardSchema}
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Ours against the incumbents on the same rows in the same files: one day of events per file,
 * `parts` days ending now, written once as a persist shard (one part per day), once as a Delta
 * Lake table (one commit, one file per day, Delta's per-file stats collected on write) and once
 * as plain Parquet (one file per day; Spark's Parquet filter pushdown skips row groups). The file
 * boundaries are checked to be identical (rows, min and max of `n` per file) before any query.
 *
 * Each filter shape runs on the three systems in one process, alternating, median of `runs`;
 * results must agree (except for windows on the wall clock, whose edge moves while it runs). Files read: our scan report (parts read), and for Delta and Parquet the
 * "number of files read" metric of the executed `FileSourceScanExec` (AQE off so the executed
 * plan is the final one). For Parquet that is every file: its pushdown skips row groups inside
 * the files it opens.
 *
 * `bench/runMain sparkpersist.bench.IncumbentsBench [parts=200] [rowsPerPart=5000] [runs=5] [shapes]`;
 * `shapes`, a comma-separated list of shape names (e.g. `"VARIANT path,JSON path"`), runs only
 * those. Prints a table and writes bench/out/incumbents.json.
 */
object IncumbentsBench {
  private val DayMs = 86400000L
  private val Systems = Seq("ours", "delta", "parquet")

  /** A filter shape; ours runs `oursPredicate` when it differs (the `mz_now()` form of a window). */
  final case class Shape(name: String, predicate: String, oursPredicate: Option[String] = None) {
    def predicateFor(system: String): String = if (system == "ours") oursPredicate.getOrElse(predicate) else predicate

    /**
     * Whether every system must count the same rows: not for windows on the wall clock, whose
     * edge moves between runs (and `mz_now()` is the time of the write, not of the query).
     */
    def sameRows: Boolean = oursPredicate.isEmpty && !predicate.contains("current_timestamp")
  }

  /** One query run on one system. */
  final case class Run(result: String, filesRead: Long, wallMs: Double, cpuMs: Double)

  def main(args: Array[String]): Unit = {
    val parts = arg(args, 0, 200)(_.toInt)
    val rowsPerPart = arg(args, 1, 5000)(_.toInt)
    val runs = arg(args, 2, 5)(_.toInt)
    val only = arg(args, 3, Set.empty[String])(_.split(',').map(_.trim).toSet)
    val root = Files.createTempDirectory("incumbents-bench").toFile
    val spark = Bench.persistAndDeltaSession("IncumbentsBench", new File(root, "shards"),
      conf = Map(
        "spark.sql.adaptive.enabled" -> "false",
        "spark.sql.parquet.filterPushdown" -> "true"))
    try {
      val now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toEpochMilli
      val shapes = shapesFor(now, now - parts * DayMs, rowsPerPart).filter(s => only.isEmpty || only(s.name))
      require(shapes.nonEmpty, s"no shape is named ${only.mkString(", ")}")
      val (deltaDir, parquetDir) = (new File(root, "delta").toURI.toString, new File(root, "parquet").toURI.toString)
      writeAll(spark, events(spark, now, parts, rowsPerPart), deltaDir, parquetDir, rowsPerPart)
      val files = checkSameFiles(spark, deltaDir, parquetDir)
      val tables = Map("ours" -> "persist.events", "delta" -> s"delta.`$deltaDir`", "parquet" -> s"parquet.`$parquetDir`")
      val measured = Bench.rounds(runs) { r =>
        val order = Systems.drop(r % Systems.size) ++ Systems.take(r % Systems.size)
        for (shape <- shapes; system <- order) yield (shape.name, system) ->
          run(spark, system, s"SELECT count(*), sum(amount) FROM ${tables(system)} WHERE ${shape.predicateFor(system)}")
      }.map { case (key, rs) => key -> rs.head.copy(wallMs = median(rs.map(_.wallMs)), cpuMs = median(rs.map(_.cpuMs))) }
      val table = report(shapes, measured, files, rowsPerPart, runs)
      table.print()
      BenchOutput.write("incumbents.json", "incumbents",
        Seq("parts" -> parts, "rowsPerPart" -> rowsPerPart, "runs" -> runs, "files" -> files,
          "delta" -> deltaVersion, "spark" -> spark.version), table)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  /**
   * `parts` days of events ending at `now`, partition i = day i (so one file or part per day):
   * `event_ts` rising through the day, `n` the row number, `js` a JSON document with the event's
   * epoch second and country.
   */
  private def events(spark: SparkSession, now: Long, parts: Int, rowsPerPart: Int): DataFrame =
    spark.range(0L, parts.toLong * rowsPerPart, 1L, parts).select(
      timestamp_millis(lit(now - parts * DayMs) + col("id") * (DayMs / rowsPerPart)).as("event_ts"),
      col("id").as("n"),
      when(col("id") % 3 === 0, "US").otherwise("DE").as("country"),
      (col("id") % 1000).cast("double").as("amount"))
      .withColumn("js", expr("to_json(named_struct('ts', unix_seconds(event_ts), 'country', country))"))
      .withColumn("ingest_ms", lit(now))

  private def writeAll(spark: SparkSession, rows: DataFrame, deltaDir: String, parquetDir: String, rowsPerPart: Int): Unit = {
    val data = rows.drop("ingest_ms")
    // `js` is declared JSON text, as a user of ours would declare it, so it gets JSON statistics.
    val shard = SessionShards.store(spark).create("events",
      ShardSchema.fromStruct(JsonColumns.declare("events", data.schema, Seq("js"))))
    val writes = Seq(
      "ours" -> (() => ShardWriter.write(rows, shard,
        WriteOptions(timeCol = Some("ingest_ms"), maxRowsPerPart = Some(rowsPerPart)))),
      "delta" -> (() => data.write.format("delta").save(deltaDir)),
      "parquet" -> (() => data.write.parquet(parquetDir)))
    writes.foreach { case (system, write) =>
      val (_, ms) = timedMs(write())
      println(f"$system%-8s written in ${ms / 1e3}%.1f s")
    }
  }

  /**
   * The number of files, after checking that the three systems hold the same files: the same
   * multiset of (rows, min n, max n), read from our part stats, Delta's per-file stats in its log
   * (which also shows they were collected) and the Parquet files themselves.
   */
  private def checkSameFiles(spark: SparkSession, deltaDir: String, parquetDir: String): Int = {
    val state = SessionShards.store(spark).open("events").state
    val nId = state.schema.column("n").get.id
    val ours = state.parts.map { p =>
      val n = p.stats.get.columns(nId)
      (p.rowCount, n.lower.get.asInstanceOf[Long], n.upper.get.asInstanceOf[Long])
    }.toSeq
    def triples(df: DataFrame) = df.collect().toSeq.map { r =>
      require(!r.anyNull, s"a file without row count or bounds of n (Delta writes them unless stats collection is off): $r")
      (r.getLong(0), r.getLong(1), r.getLong(2))
    }
    val delta = triples(spark.read.json(s"$deltaDir/_delta_log/*.json").where("add IS NOT NULL")
      .select(expr("from_json(add.stats, 'numRecords BIGINT, minValues STRUCT<n: BIGINT>, maxValues STRUCT<n: BIGINT>')").as("s"))
      .select("s.numRecords", "s.minValues.n", "s.maxValues.n"))
    val parquet = triples(spark.read.parquet(parquetDir).groupBy(expr("input_file_name()"))
      .agg(expr("count(*)"), expr("min(n)"), expr("max(n)")).drop("input_file_name()"))
    Seq("delta" -> delta, "parquet" -> parquet).foreach { case (system, files) =>
      require(files.sorted == ours.sorted,
        s"$system holds other files than ours: ${files.size} files vs ${ours.size} parts " +
          s"(first differences: ${files.sorted.diff(ours.sorted).take(3)})")
    }
    println(s"same files: ${ours.size} parts = ${delta.size} Delta files (with stats) = ${parquet.size} Parquet files")
    ours.size
  }

  /**
   * The filter shapes, each keeping about the last two days (seven for the windows) of `now`'s
   * history starting at `first`.
   */
  private def shapesFor(now: Long, first: Long, rowsPerPart: Int): Seq[Shape] = {
    def sqlTimestamp(ms: Long) = Instant.ofEpochMilli(ms).toString.replace("T", " ").stripSuffix("Z")
    val from = now - 2 * DayMs
    val ts = sqlTimestamp(from)
    val day = ts.take(10)
    val nFrom = (from - first) / (DayMs / rowsPerPart)
    Seq(
      Shape("col op literal", s"event_ts >= TIMESTAMP '$ts'"),
      Shape("now() window", "event_ts >= current_timestamp() - INTERVAL 7 DAYS",
        Some("mz_now() <= event_ts + INTERVAL 7 DAYS")),
      Shape("current_timestamp() window", "event_ts >= current_timestamp() - INTERVAL 7 DAYS"),
      Shape("date_trunc", s"date_trunc('DAY', event_ts) >= TIMESTAMP '$day 00:00:00'"),
      Shape("cast", s"CAST(event_ts AS DATE) >= DATE '$day'"),
      Shape("timestamp + interval", s"event_ts + INTERVAL 2 DAYS >= TIMESTAMP '${sqlTimestamp(now)}'"),
      Shape("arithmetic", s"n * 2 + 1 >= ${2 * nFrom + 1}"),
      Shape("OR / NOT", s"NOT (event_ts < TIMESTAMP '$ts') OR n < 0"),
      Shape("JSON path", s"CAST(get_json_object(js, '$$.ts') AS BIGINT) >= ${from / 1000}"),
      Shape("VARIANT path", s"variant_get(parse_json(js), '$$.ts', 'bigint') >= ${from / 1000}"))
  }

  /** The delta-spark version on the classpath, from its jar's name. */
  private def deltaVersion: String = {
    val jar = classOf[io.delta.tables.DeltaTable].getProtectionDomain.getCodeSource.getLocation.getPath
    "delta-spark_[0-9.]+-(.+)\\.jar$".r.findFirstMatchIn(jar).map(_.group(1)).getOrElse(jar)
  }

  private def run(spark: SparkSession, system: String, query: String): Run =
    if (system == "ours") {
      val r = runPersist(spark, query, "on")
      Run(r.result, r.partsRead, r.wallMs, r.cpuMs)
    } else {
      val df = spark.sql(query)
      val (rows, ms, cpuMs) = Bench.timedWithCpuMs(df.collect())
      val scans = df.queryExecution.executedPlan.collect { case s: FileSourceScanExec => s }
      require(scans.size == 1, s"expected one file scan for $query, got:\n${df.queryExecution.executedPlan}")
      Run(String.valueOf(rows.head.get(0)), scans.head.metrics("numFiles").value, ms, cpuMs)
    }

  private def report(shapes: Seq[Shape], measured: Map[(String, String), Run], files: Int, rowsPerPart: Int,
      runs: Int): Table = {
    import Table.Column
    val rows = for (shape <- shapes; system <- Systems) yield {
      val (r, ours) = (measured((shape.name, system)), measured((shape.name, "ours")))
      require(!shape.sameRows || r.result == ours.result, s"${shape.name}: $system counted ${r.result} rows, ours ${ours.result}")
      Seq[Any](shape.name, system, shape.predicateFor(system), r.result.toLong, s"${r.filesRead}/$files", r.wallMs,
        r.filesRead.toDouble / ours.filesRead, r.wallMs / ours.wallMs, r.cpuMs, r.cpuMs / ours.cpuMs)
    }
    Table(s"Filter shapes on the same $files files of $rowsPerPart rows (one per day, newest now), local[2], " +
      s"median of $runs alternating runs after a warm-up",
      Seq(Column("shape", "shape"), Column("system", "system"), Column("predicate", "predicate"),
        Column("rows", "rows"), Column("files read", "files"), Column("wall ms", "wallMs"),
        Column("files / ours", "filesRatio", 2), Column("time / ours", "timeRatio", 2),
        Column("CPU ms", "cpuMs"), Column("CPU / ours", "cpuRatio", 2)),
      rows,
      Seq("files read: ours = parts the scan read; delta / parquet = FileSourceScanExec 'number of files read' " +
        "(Parquet opens every file and skips row groups inside it)"))
  }
}
