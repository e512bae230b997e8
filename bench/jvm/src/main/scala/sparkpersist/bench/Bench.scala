package sparkpersist.bench

import java.io.File

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.{col, lit, timestamp_millis, when}

import sparkpersist.catalog.{PersistCatalog, SessionShards}
import sparkpersist.scan.ScanReports
import sparkpersist.write.{ShardWriter, WriteOptions}
import sparkpersist.{PersistConf, PersistExtensions}

/** What every benchmark shares: its session, timing, medians and the arguments it reads. */
object Bench {

  /** The median of `xs` (the upper one for an even count). */
  def median(xs: Seq[Double]): Double = {
    require(xs.nonEmpty, "median of no values")
    xs.sorted.apply(xs.size / 2)
  }

  /** The `p` quantile of `xs` (0 < p <= 1) by nearest rank: the smallest value at or above a share `p` of them. */
  def percentile(xs: Seq[Double], p: Double): Double = {
    require(xs.nonEmpty, "percentile of no values")
    val sorted = xs.sorted
    sorted(math.min(sorted.size - 1, math.max(0, math.ceil(p * sorted.size).toInt - 1)))
  }

  /**
   * One untimed warm-up round (class loading, JIT, caches), then `runs` rounds; each round
   * measures every compared system/setting side by side (alternating). The results by key.
   */
  def rounds[K, R](runs: Int)(round: Int => Seq[(K, R)]): Map[K, Seq[R]] = {
    round(0)
    (1 to runs).flatMap(round).groupBy(_._1).map { case (k, rs) => k -> rs.map(_._2) }
  }

  private val os = java.lang.management.ManagementFactory.getOperatingSystemMXBean
    .asInstanceOf[com.sun.management.OperatingSystemMXBean]

  /**
   * This process's CPU time in milliseconds. Spark runs in local mode, so it counts every task of
   * a query (and the JVM's own threads): on a shared machine it varies less than wall time.
   */
  def processCpuMs(): Double = os.getProcessCpuTime / 1e6

  /** Runs `body`, returning its result and its wall time in milliseconds. */
  def timedMs[A](body: => A): (A, Double) = {
    val start = System.nanoTime()
    val result = body
    (result, (System.nanoTime() - start) / 1e6)
  }

  /** `body`'s result, wall time and this process's CPU time ([[processCpuMs]]), in milliseconds. */
  def timedWithCpuMs[A](body: => A): (A, Double, Double) = {
    val cpuStart = processCpuMs()
    val (result, wallMs) = timedMs(body)
    (result, wallMs, processCpuMs() - cpuStart)
  }

  /** Positional argument `i`, or `default` when absent. */
  def arg[A](args: Array[String], i: Int, default: A)(parse: String => A): A =
    args.lift(i).map(parse).getOrElse(default)

  /** A comma-separated list argument, e.g. `1,2,5,10`. */
  def intList(s: String): Seq[Int] = s.split(',').toSeq.map(_.trim.toInt)

  /**
   * A local[2] session, UTC, UI off, with the persist extension and the `persist` catalog rooted
   * at `root`. `extensions` and `conf` add to it (e.g. Delta's extension and catalog).
   */
  def persistSession(app: String, root: File, extensions: Seq[String] = Nil,
      conf: Map[String, String] = Map.empty): SparkSession = {
    val builder = SparkSession.builder().master("local[2]").appName(app)
      .config("spark.ui.enabled", "false")
      .config("spark.sql.extensions", (classOf[PersistExtensions].getName +: extensions).mkString(","))
      .config("spark.sql.catalog.persist", classOf[PersistCatalog].getName)
      .config("spark.sql.catalog.persist.root", root.toURI.toString)
      .config("spark.sql.session.timeZone", "UTC")
    val spark = conf.foldLeft(builder) { case (b, (k, v)) => b.config(k, v) }.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    spark
  }

  /** Delta Lake's extension and catalog, beside ours: the incumbent the comparisons run against. */
  val DeltaExtensions: Seq[String] = Seq("io.delta.sql.DeltaSparkSessionExtension")
  val DeltaCatalog: (String, String) = "spark.sql.catalog.spark_catalog" -> "org.apache.spark.sql.delta.catalog.DeltaCatalog"

  /** [[persistSession]] that also reads and writes Delta tables (`conf` added). */
  def persistAndDeltaSession(app: String, root: File, conf: Map[String, String] = Map.empty): SparkSession =
    persistSession(app, root, DeltaExtensions, conf + DeltaCatalog)

  /**
   * Creates `persist.<table>` and writes `parts * rowsPerPart` events to it in one batch at time
   * `ingestMs`, with temporal locality: part i holds the `partMs` of events from
   * `firstMs + i * partMs` (`event_ts` rising, `n` the row number, `country` US or DE, `amount`).
   */
  def writeEvents(spark: SparkSession, table: String, parts: Int, rowsPerPart: Int, firstMs: Long, partMs: Long,
      ingestMs: Long): Unit = {
    spark.sql(s"CREATE TABLE persist.$table (event_ts TIMESTAMP, country STRING, amount DOUBLE, n BIGINT)")
    val rows = spark.range(0L, parts.toLong * rowsPerPart, 1L, parts).select(
      timestamp_millis(lit(firstMs) + col("id") * (partMs / rowsPerPart)).as("event_ts"),
      when(col("id") % 3 === 0, "US").otherwise("DE").as("country"),
      (col("id") % 1000).cast("double").as("amount"),
      col("id").as("n"),
      lit(ingestMs).as("ingest_ms"))
    val (_, ms) = timedMs(ShardWriter.write(rows, SessionShards.store(spark).open(table),
      WriteOptions(timeCol = Some("ingest_ms"), maxRowsPerPart = Some(rowsPerPart))))
    println(f"$table: $parts parts of $rowsPerPart rows written in ${ms / 1e3}%.1f s")
  }

  /** One persist query run: its first result row's first column, and what its (single) scan read. */
  final case class PersistRun(result: String, partsRead: Long, partsTotal: Long, bytesRead: Long,
      bytesTotal: Long, wallMs: Double, cpuMs: Double, planningMs: Double, pruningMs: Double)

  /**
   * Runs `query` (over one persist table) with pushdown `mode` (`on` / `off`); reports wall and
   * process CPU time, Spark's planning phases (analysis, optimization, physical planning) and the scan's report.
   */
  def runPersist(spark: SparkSession, query: String, mode: String): PersistRun = {
    spark.conf.set(PersistConf.PushdownMode.key, mode)
    val df = spark.sql(query)
    val (rows, wallMs, cpuMs) = timedWithCpuMs(df.collect())
    val planningMs = df.queryExecution.tracker.phases.values.map(_.durationMs).sum.toDouble
    val scan = ScanReports.last(spark) match {
      case Seq(one) => one.metrics
      case other => throw new IllegalStateException(s"expected one persist scan for $query, got ${other.size}")
    }
    PersistRun(String.valueOf(rows.head.get(0)), scan.partsKept, scan.partsTotal, scan.bytesKept,
      scan.bytesTotal, wallMs, cpuMs, planningMs, scan.pruningNanos / 1e6)
  }

  /** The medians of the timed fields of `runs` (counts from the first run: they do not vary). */
  def medianRun(runs: Seq[PersistRun]): PersistRun = runs.head.copy(
    wallMs = median(runs.map(_.wallMs)), cpuMs = median(runs.map(_.cpuMs)), planningMs = median(runs.map(_.planningMs)),
    pruningMs = median(runs.map(_.pruningMs)))
}
