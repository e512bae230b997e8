package sparkpersist.bench

import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.{col, lit, timestamp_millis, when}

import sparkpersist.{PersistConf, PersistExtensions}
import sparkpersist.shard.Json
import sparkpersist.source.{PersistCatalog, ScanReports}
import sparkpersist.write.{ShardWriter, WriteOptions}

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

  final case class Measure(mode: String, rows: Long, partsRead: Long, partsTotal: Long, bytesRead: Long,
      bytesTotal: Long, wallMs: Double, planningMs: Double, pruningMs: Double)

  def main(args: Array[String]): Unit = {
    val parts = args.headOption.map(_.toInt).getOrElse(1000)
    val rowsPerPart = args.lift(1).map(_.toInt).getOrElse(2000)
    val runs = args.lift(2).map(_.toInt).getOrElse(7)
    val root = Files.createTempDirectory("pruning-bench").toFile
    val spark = SparkSession.builder().master("local[2]").appName("PruningBench")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.extensions", classOf[PersistExtensions].getName)
      .config("spark.sql.catalog.persist", classOf[PersistCatalog].getName)
      .config("spark.sql.catalog.persist.root", root.toURI.toString)
      .config("spark.sql.session.timeZone", "UTC")
      .getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try {
      spark.sql("CREATE TABLE persist.events (event_ts TIMESTAMP, country STRING, amount DOUBLE, n BIGINT)")
      val shard = sparkpersist.SessionShards.store(spark).open("events")
      val rows = spark.range(0L, parts.toLong * rowsPerPart, 1L, parts).select(
        timestamp_millis(lit(Start) + col("id") * (HourMs / rowsPerPart)).as("event_ts"),
        when(col("id") % 3 === 0, "US").otherwise("DE").as("country"),
        (col("id") % 1000).cast("double").as("amount"),
        col("id").as("n"),
        lit(Start + parts * HourMs).as("ingest_ms"))
      val t0 = System.nanoTime()
      ShardWriter.write(rows, shard, WriteOptions(timeCol = Some("ingest_ms")))
      println(f"wrote $parts parts of $rowsPerPart rows in ${(System.nanoTime() - t0) / 1e9}%.1f s")

      val windowHours = math.max(1, parts / 100)
      val query = s"SELECT count(*), sum(amount) FROM persist.events " +
        s"WHERE mz_now() <= event_ts + INTERVAL $windowHours HOURS"
      val byMode = (1 to runs).flatMap(_ => Seq("on", "off").map(mode => measure(spark, query, mode)))
        .groupBy(_.mode).map { case (mode, ms) => mode -> median(ms) }
      printTable(byMode("on"), byMode("off"), parts, query)
      write(byMode, parts, rowsPerPart, runs, query)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  private def measure(spark: SparkSession, query: String, mode: String): Measure = {
    spark.conf.set(PersistConf.PushdownMode.key, mode)
    val start = System.nanoTime()
    val df = spark.sql(query)
    val rows = df.collect().head.getLong(0)
    val end = System.nanoTime()
    val planningMs = df.queryExecution.tracker.phases.values.map(_.durationMs).sum.toDouble
    val scan = ScanReports.last(spark).head
    Measure(mode, rows, scan.metrics.partsKept, scan.metrics.partsTotal, scan.metrics.bytesKept,
      scan.metrics.bytesTotal, (end - start) / 1e6, planningMs, scan.metrics.pruningNanos / 1e6)
  }

  private def median(ms: Seq[Measure]): Measure = {
    def mid(f: Measure => Double) = ms.map(f).sorted.apply(ms.size / 2)
    ms.head.copy(wallMs = mid(_.wallMs), planningMs = mid(_.planningMs), pruningMs = mid(_.pruningMs))
  }

  private def printTable(on: Measure, off: Measure, parts: Int, query: String): Unit = {
    println(s"\n$query  ($parts parts, median)")
    println(f"${"pushdown"}%-9s ${"rows"}%9s ${"parts read"}%12s ${"MB read"}%9s ${"wall ms"}%9s ${"planning ms"}%12s ${"pruning ms"}%11s")
    Seq(on, off).foreach { m =>
      println(f"${m.mode}%-9s ${m.rows}%9d ${s"${m.partsRead}/${m.partsTotal}"}%12s ${m.bytesRead / 1e6}%9.2f " +
        f"${m.wallMs}%9.1f ${m.planningMs}%12.1f ${m.pruningMs}%11.2f")
    }
    println(f"on/off: wall ${on.wallMs / off.wallMs}%.3f, bytes ${on.bytesRead.toDouble / off.bytesRead}%.3f, " +
      f"planning +${on.planningMs - off.planningMs}%.1f ms")
  }

  private def write(byMode: Map[String, Measure], parts: Int, rowsPerPart: Int, runs: Int, query: String): Unit = {
    val out = Json.obj().put("benchmark", "pruning").put("parts", parts).put("rowsPerPart", rowsPerPart)
      .put("runs", runs).put("query", query)
    byMode.foreach { case (mode, m) =>
      out.putObject(mode).put("rows", m.rows).put("partsRead", m.partsRead).put("partsTotal", m.partsTotal)
        .put("bytesRead", m.bytesRead).put("bytesTotal", m.bytesTotal).put("wallMs", m.wallMs)
        .put("planningMs", m.planningMs).put("pruningMs", m.pruningMs)
    }
    BenchOutput.write("pruning.json", out)
  }
}
