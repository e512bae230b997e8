package sparkpersist.bench

import java.io.File
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.functions.{col, concat, exp, floor, lit, pmod, timestamp_millis, xxhash64}

import sparkpersist.PersistConf
import sparkpersist.catalog.SessionShards
import sparkpersist.compact.{CompactOptions, Lifecycle}
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Clustering (issue 34): what a filter on a column other than time reads, before and after
 * clustering compaction, against the best layout for that filter and against Delta liquid
 * clustering on the same rows.
 *
 * `days` days of `perDay` events (country of 20, skewed; user id of 100,000; amount, log-normal;
 * event time; a JSON payload), written as `batches` appends a day. Layouts, each a shard:
 *  - `as written`: the appends, uncompacted;
 *  - `compacted`: `CALL compact` without clustering (one part a day at the default part size);
 *  - `hilbert`, `zorder`, `grid`: `CLUSTER BY (country, user_id, amount)` compacted along each
 *    curve or in the grid (`cluster.curve`), in parts of about `rowsPerPart` rows
 *    (`spark.sparkpersist.cluster.partBytes` set from the written bytes per row);
 *  - `grid_indexed`: `grid` with `sparkpersist.indexColumns = 'user_id'` (membership filters);
 *  - `auto`: `sparkpersist.clusterBy = 'auto'`: the benchmark's queries run once on the written
 *    appends, then compaction clusters along the columns their filters chose (printed beside the
 *    hand-tuned choice);
 *  - `ideal`: per filter, one shard per column, each day sorted by that column alone and cut into
 *    as many parts as the clustered layout has per day: the lower bound of any layout for a
 *    filter on that column (for a filter on two columns, the better of the two);
 *  - `delta`: a Delta table (the line's release, versions.properties) `CLUSTER BY (country,
 *    user_id, amount)`, the same appends, then `OPTIMIZE` with `spark.databricks.delta.optimize.maxFileSize` at the clustered part size.
 * Every query's answer is checked equal across layouts and against Delta. The newest day is not
 * sealed (no write after it), so no layout but Delta's clusters it.
 *
 * Prints a table (parts read / total; the clustered layouts' ratio to the ideal; bytes read against
 * Delta's), then [[ClusterBound]]'s on the first `boundDays` days, and writes both to
 * bench/out/cluster.json (plot.py draws cluster.png).
 *
 * Args: `days perDay batches rowsPerPart boundDays` (default 90 10000 4 1000 10).
 */
object ClusterBench {
  private[bench] val Day = 86400000L
  private[bench] val Start = 1767225600000L // 2026-01-01 UTC
  private[bench] val Clustering = Seq("country", "user_id", "amount")
  private val Countries = Seq("US", "IN", "BR", "DE", "GB", "FR", "JP", "MX", "NG", "ID", "PK", "PH", "VN", "TR",
    "EG", "IT", "ES", "KR", "CA", "AU")

  def main(args: Array[String]): Unit = {
    val days = Bench.arg(args, 0, 90)(_.toInt)
    val perDay = Bench.arg(args, 1, 10000)(_.toInt)
    val batches = Bench.arg(args, 2, 4)(_.toInt)
    val rowsPerPart = Bench.arg(args, 3, 1000)(_.toInt)
    val boundDays = Bench.arg(args, 4, 10)(_.toInt)
    val root = Files.createTempDirectory("cluster-bench").toFile
    val spark = Bench.persistAndDeltaSession("ClusterBench", new File(root, "shards"),
      Map("spark.sql.adaptive.enabled" -> "false"))
    try {
      val deltaDir = new File(root, "delta/events")
      val layouts = Seq("written", "compacted", "hilbert", "zorder", "grid", "grid_indexed", "auto")
      layouts.foreach(l => spark.sql(s"CREATE TABLE persist.$l ($Columns)"))
      spark.sql("ALTER TABLE persist.auto SET TBLPROPERTIES ('sparkpersist.clusterBy' = 'auto')")
      Seq("hilbert", "zorder", "grid", "grid_indexed").foreach(l =>
        spark.sql(s"ALTER TABLE persist.$l CLUSTER BY (${Clustering.mkString(", ")})"))
      spark.sql("ALTER TABLE persist.grid_indexed SET TBLPROPERTIES ('sparkpersist.indexColumns' = 'user_id')")
      spark.sql(s"CREATE TABLE delta.`$deltaDir` ($Columns) USING delta CLUSTER BY (${Clustering.mkString(", ")})")
      val (_, writeMs) = Bench.timedMs {
        for (d <- 0 until days; b <- 0 until batches) {
          val df = events(spark, d, b, perDay, batches)
          layouts.foreach(l => ShardWriter.write(df, SessionShards.store(spark).open(l), WriteOptions(timeCol = Some("ingest"))))
          df.drop("ingest").write.format("delta").mode("append").save(deltaDir.toString)
        }
      }
      println(f"${days * batches} appends of ${perDay / batches} events written to ${layouts.size} shards and Delta in ${writeMs / 1e3}%.0f s")
      val written = SessionShards.store(spark).open("written").state
      val partBytes = written.batches.map(_.bytes).sum / math.max(1L, written.batches.map(_.rowCount).sum) * rowsPerPart
      val rows = days.toLong * perDay
      // An aggregate no statistics answer: every part kept is read.
      def query(table: String, where: String) = s"SELECT bit_xor(xxhash64(id, amount)), count(*) FROM $table WHERE $where"
      queries(days).foreach { case (_, where, _) => spark.sql(query("persist.auto", where)).collect() } // the workload
      // grid_indexed: the user_id membership filters (Bloom-sized, ~1 KiB a part) need a larger stats budget.
      val compaction = Seq("compacted" -> None, "hilbert" -> Some("hilbert"), "zorder" -> Some("zorder"),
        "grid" -> Some("grid"), "grid_indexed" -> Some("grid"), "auto" -> Some("hilbert")).map {
        case (layout, curve) =>
          val settings = Seq(PersistConf.ClusterPartBytes.key -> partBytes.toString) ++
            curve.map(PersistConf.ClusterCurve.key -> _) ++
            (if (layout == "grid_indexed") Seq(PersistConf.StatsBudgetBytes.key -> "4096") else Nil)
          settings.foreach { case (k, v) => spark.conf.set(k, v) }
          val (result, ms) = Bench.timedMs(Lifecycle.compact(spark, layout, CompactOptions()))
          settings.foreach { case (k, _) => spark.conf.unset(k) }
          println(s"$layout: ${result.partsBefore} parts -> ${result.partsAfter} in ${result.millis} ms")
          layout -> ms * 1e6 / rows
      }.toMap
      spark.conf.set("spark.databricks.delta.optimize.maxFileSize", partBytes.toString)
      val (_, deltaOptimizeMs) = Bench.timedMs(spark.sql(s"OPTIMIZE delta.`$deltaDir`").collect())
      val clustered = SessionShards.store(spark).open("hilbert").state
      val sealedDays = clustered.batches.filter(_.clusteredBy.nonEmpty)
      val partsPerDay = math.max(1, math.round(sealedDays.map(_.partCount).sum.toDouble / math.max(1, sealedDays.size)).toInt)
      Clustering.foreach(c => ideal(spark, c, days, perDay, batches, partsPerDay))

      val autoChoice = spark.sql("CALL persist.system.clustering('auto')").collect()
        .filter(_.getAs[Boolean]("chosen")).map(_.getAs[String]("column")).toSeq
      println(s"auto chose (${autoChoice.mkString(", ")}); hand-tuned (${Clustering.mkString(", ")})")
      val deltaFiles = spark.sql(s"DESCRIBE DETAIL delta.`$deltaDir`").head().getAs[Long]("numFiles")
      val read = queries(days).map { case (name, where, columns) =>
        val results = (layouts ++ columns.map(c => s"ideal_$c")).map { l =>
          l -> Bench.runPersist(spark, query(s"persist.$l", where), "on")
        }.toMap
        val delta = deltaRun(spark, query(s"delta.`$deltaDir`", where))
        val answers = (results.values.map(_.result) ++ Seq(delta._1)).toSet
        require(answers.size == 1, s"layouts disagree on $name: $results, delta ${delta._1}")
        val idealParts = columns.map(c => results(s"ideal_$c").partsRead).minOption
        (name, results, idealParts, delta)
      }
      val totals = (layouts ++ Clustering.map(c => s"ideal_$c")).map(l => l -> SessionShards.store(spark).open(l).state.partCount.toLong) :+
        ("delta" -> deltaFiles)
      val table = report(read, totals, compaction, deltaOptimizeMs * 1e6 / rows, days, perDay, batches, partsPerDay,
        autoChoice)
      table.print()
      val bound = ClusterBound.run(spark, math.min(days, boundDays), perDay, batches)
      bound.print()
      BenchOutput.write("cluster.json", "cluster", Seq("days" -> days, "perDay" -> perDay, "batches" -> batches,
        "rowsPerPart" -> rowsPerPart, "partsPerDay" -> partsPerDay, "boundDays" -> math.min(days, boundDays),
        "spark" -> spark.version), table, bound)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  private[bench] val Columns = "id BIGINT, country STRING, user_id BIGINT, amount DOUBLE, event_ts TIMESTAMP, payload STRING"

  /** Append `b` of day `d`: `perDay / batches` events of the hours it covers, ingested at its end. */
  private[bench] def events(spark: SparkSession, d: Int, b: Int, perDay: Int, batches: Int): DataFrame = {
    val n = perDay / batches
    val first = d.toLong * perDay + b.toLong * n
    val span = Day / batches
    val ingest = Start + d * Day + (b + 1) * span - 1
    val id = col("id")
    val h = xxhash64(id)
    // Country: a skewed pick (US most frequent, AU least: index floor(21^u) - 1), user id uniform, amount log-normal.
    val skew = floor(exp(pmod(h, lit(1000L)).cast("double") / 1000.0 * math.log(21.0)) - 1).cast("int")
    spark.range(first, first + n, 1, 1).select(
      id,
      lit(Countries.toArray).getItem(skew).as("country"),
      pmod(xxhash64(id, lit(1)), lit(100000L)).as("user_id"),
      floor(exp(pmod(xxhash64(id, lit(2)), lit(10000L)).cast("double") / 1000.0)).cast("double").as("amount"),
      timestamp_millis(lit(ingest) - pmod(xxhash64(id, lit(3)), lit(span))).as("event_ts"),
      concat(lit("{\"kind\":\""), lit(Array("view", "click", "cart", "buy", "refund")).getItem(pmod(h, lit(5L)).cast("int")),
        lit("\",\"v\":"), pmod(h, lit(97L)).cast("string"), lit("}")).as("payload"),
      lit(ingest).as("ingest"))
  }

  /** The ideal layout for column `c`: each day one batch sorted by `c` alone, in `partsPerDay` parts. */
  private def ideal(spark: SparkSession, c: String, days: Int, perDay: Int, batches: Int, partsPerDay: Int): Unit = {
    spark.sql(s"CREATE TABLE persist.ideal_$c ($Columns) TBLPROPERTIES ('order_by' = '$c')")
    val shard = SessionShards.store(spark).open(s"ideal_$c")
    for (d <- 0 until days) {
      val day = (0 until batches).map(events(spark, d, _, perDay, batches)).reduce(_ union _)
        .withColumn("ingest", lit(Start + (d + 1) * Day - 1)).coalesce(1)
      ShardWriter.write(day, shard, WriteOptions(timeCol = Some("ingest"),
        maxRowsPerPart = Some((perDay + partsPerDay - 1) / partsPerDay)))
    }
  }

  /** Name, filter, and the clustering columns it constrains (whose ideal layouts bound it). */
  private def queries(days: Int): Seq[(String, String, Seq[String])] = {
    def since(d: Int) = s"event_ts >= TIMESTAMP '${java.time.Instant.ofEpochMilli(Start + d * Day)}'"
    Seq(
      ("country = 'US' (frequent)", "country = 'US'", Seq("country")),
      ("country = 'AU' (rare)", "country = 'AU'", Seq("country")),
      ("user_id = 4242", "user_id = 4242", Seq("user_id")),
      ("user_id < 1000", "user_id < 1000", Seq("user_id")),
      ("amount > 5000", "amount > 5000", Seq("amount")),
      ("country and user_id", "country = 'DE' AND user_id BETWEEN 20000 AND 30000", Seq("country", "user_id")),
      ("country and amount", "country = 'BR' AND amount BETWEEN 100 AND 200", Seq("country", "amount")),
      ("last 10 days", since(days - 10), Nil),
      ("last 10 days, country = 'JP'", s"${since(days - 10)} AND country = 'JP'", Seq("country")),
      ("last 30 days, user_id = 4242", s"${since(days - 30)} AND user_id = 4242", Seq("user_id")),
      ("payload kind = 'refund' (not clustered)", "get_json_object(payload, '$.kind') = 'refund'", Nil))
  }

  /** Delta's answer, the files its scan read and their bytes (AQE off: the scan is in the plan). */
  private def deltaRun(spark: SparkSession, query: String): (String, Long, Long) = {
    val df = spark.sql(query)
    val result = String.valueOf(df.collect().head.get(0))
    val scan = df.queryExecution.executedPlan.collectFirst { case s: FileSourceScanExec => s }
      .getOrElse(throw new IllegalStateException(s"no file scan in the plan of $query"))
    (result, scan.metrics("numFiles").value, scan.metrics("filesSize").value)
  }

  private def report(read: Seq[(String, Map[String, Bench.PersistRun], Option[Long], (String, Long, Long))],
      totals: Seq[(String, Long)], compaction: Map[String, Double], deltaOptimize: Double, days: Int, perDay: Int,
      batches: Int, partsPerDay: Int, autoChoice: Seq[String]): Table = {
    val rows = read.map { case (name, results, ideal, (_, deltaFiles, deltaBytes)) =>
      def ratio(layout: String) = ideal.map(i => results(layout).partsRead.toDouble / math.max(1L, i)).getOrElse(Double.NaN)
      def bytes(layout: String) = results(layout).bytesRead.toDouble / results(layout).bytesTotal
      Seq(name, results("written").partsRead, results("compacted").partsRead, results("hilbert").partsRead,
        results("zorder").partsRead, results("grid").partsRead, results("grid_indexed").partsRead,
        results("auto").partsRead, ideal, deltaFiles, ratio("hilbert"), ratio("grid"), bytes("compacted"),
        bytes("hilbert"), bytes("grid"), results("hilbert").bytesRead / 1e6, results("grid").bytesRead / 1e6,
        results("grid_indexed").bytesRead / 1e6, deltaBytes / 1e6)
    }
    // Bytes read over all the queries, each layout against Delta's; time windows against the compacted layout.
    def total(layout: String) = read.map(_._2(layout).bytesRead).sum.toDouble
    val deltaTotal = read.map(_._4._3).sum.toDouble
    val timeOnly = read.filter(_._3.isEmpty).filter(_._1.startsWith("last"))
    def timeRatio(layout: String) = timeOnly.map(_._2(layout).bytesRead).sum.toDouble / timeOnly.map(_._2("compacted").bytesRead).sum
    Table(s"Clustering: $days days x $perDay events in $batches appends a day; CLUSTER BY (${Clustering.mkString(", ")}), " +
      s"parts of ~${perDay / partsPerDay} rows ($partsPerDay a sealed day) vs Delta liquid clustering",
      Seq(Table.Column("filter", "filter"), Table.Column("as written", "written"), Table.Column("compacted", "compacted"),
        Table.Column("hilbert", "hilbert"), Table.Column("zorder", "zorder"), Table.Column("grid", "grid"),
        Table.Column("grid+index", "gridIndexed"), Table.Column("auto", "auto"), Table.Column("ideal", "ideal"),
        Table.Column("delta files", "delta"), Table.Column("hilbert/ideal", "hilbertRatio", 2),
        Table.Column("grid/ideal", "gridRatio", 2), Table.Column("bytes compacted", "compactedBytes", 3),
        Table.Column("bytes hilbert", "hilbertBytes", 3), Table.Column("bytes grid", "gridBytes", 3),
        Table.Column("MB hilbert", "hilbertMB", 2), Table.Column("MB grid", "gridMB", 2),
        Table.Column("MB grid+index", "gridIndexedMB", 2), Table.Column("MB delta", "deltaMB", 2)),
      rows,
      Seq("Parts (Delta: files) read, pushdown on. Parts in each layout: " +
        totals.map { case (l, n) => s"$l $n" }.mkString(", ") + ".",
        "ideal: each day sorted by the filter's column alone in as many parts as a clustered day (for two columns the " +
          "better); bytes: fraction of the layout's bytes the scan read; MB: bytes of the parts (Delta: files) read.",
        "grid: cluster.curve = grid; grid+index: the same and sparkpersist.indexColumns = 'user_id' (membership " +
          "filters, stats.budgetBytes 4096 during its compaction).",
        "Bytes read over all queries against Delta's: " + Seq("compacted", "hilbert", "zorder", "grid", "grid_indexed", "auto")
          .map(l => f"$l ${total(l) / deltaTotal}%.2f").mkString(", ") + f" (Delta ${deltaTotal / 1e6}%.1f MB).",
        "Time windows (time-only filters) read against the compacted layout's bytes: " +
          Seq("hilbert", "zorder", "grid", "grid_indexed").map(l => f"$l ${timeRatio(l)}%.3f").mkString(", ") + ".",
        s"auto: the workload (each query above once, on the written appends) chose (${autoChoice.mkString(", ")}); " +
          s"hand-tuned: (${Clustering.mkString(", ")}).",
        f"Compaction per 1M rows: plain ${compaction("compacted")}%.0f ms, hilbert ${compaction("hilbert")}%.0f ms, " +
          f"zorder ${compaction("zorder")}%.0f ms, grid ${compaction("grid")}%.0f ms, grid+index " +
          f"${compaction("grid_indexed")}%.0f ms; Delta OPTIMIZE (liquid) $deltaOptimize%.0f ms.",
        "The newest day is not sealed (no write after it): our layouts compact it by tiers, unclustered."))
  }

}
