package sparkpersist.bench

import java.io.File
import java.nio.file.Files
import java.time.Instant

import scala.annotation.tailrec
import scala.collection.mutable.ArrayBuffer
import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration.Duration
import scala.util.{Failure, Random, Success, Try}

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, lit, timestamp_millis}
import org.apache.spark.sql.streaming.{StreamingQuery, StreamingQueryException, Trigger}

import sparkpersist.bench.Bench.{arg, median, percentile}
import sparkpersist.catalog.SessionShards
import sparkpersist.isolation.ConcurrentShardUpdate

/**
 * Statements beside a stream (the issue's workload): a structured stream (`rate` source,
 * `streamRowsPerSecond` rows a second, trigger every second) appends new keys to a table of `rows`
 * rows while a driver thread, every `interval` seconds, runs a MERGE and then a DELETE:
 *  - MERGE: a source of `mergeFraction` of the existing keys (every `1 / mergeFraction`-th key
 *    from a random offset) updates `amount` and `version`, and a tenth as many new keys are
 *    inserted (`WHEN NOT MATCHED THEN INSERT`);
 *  - DELETE: a random range of 0.1 % of the keys.
 * A statement that fails on a concurrent commit (ours: `ConcurrentShardUpdate` in its causes;
 * Delta: a `DeltaConcurrentModificationException`) runs again until it commits; one still failing
 * so once the phase is over fails for good. Any other failure is recorded with its message. A
 * round starts at each tick of the interval; ticks that pass while a round runs are skipped.
 *
 * Four phases in one process and one session: ours, the stream alone for `seconds`, then the
 * stream with the statements for `seconds`; then Delta the same (deletion vectors on; the same
 * rows, statements and random keys). The phases are timed from the end of the stream's first
 * micro-batch (its start-up). Measured per phase: the stream's micro-batches (their duration,
 * `triggerExecution` of `StreamingQueryProgress`, and rows appended) and failures (the query is
 * restarted from its checkpoint); statements committed and failed, retries, time per statement
 * from its first attempt to its commit, and how many committed after commits that landed while
 * they ran (ours: the state log's batches whose `commit.readUpper` is below their `lower`, i.e.
 * rebased; Delta: `DESCRIBE HISTORY` rows whose `readVersion` is below `version - 1`), with how
 * many they passed. Targets: every statement commits, at most one retry per statement on average,
 * the stream's median micro-batch with statements within 1.2x of the stream alone.
 *
 * `bench/runMain sparkpersist.bench.StreamingStatementsBench [rows=10000000] [seconds=300]
 * [interval=10] [streamRowsPerSecond=1000] [mergeFraction=0.01]`. Prints two tables and writes
 * bench/out/streaming-statements.json (with each micro-batch and statement, which plot.py draws
 * as streaming-statements.png).
 */
object StreamingStatementsBench {
  private val ShardName = "streamed"
  private val Columns = "id BIGINT, amount DOUBLE, version BIGINT, ts TIMESTAMP"
  /** Rows of each part (ours) and file (Delta) of the initial table. */
  private val PartRows = 100000L
  private val Seed = 42L
  private val Alone = "stream alone"
  private val WithStatements = "stream + statements"
  private val Kinds = Seq("MERGE", "DELETE")

  final case class Config(rows: Long, seconds: Int, intervalS: Int, streamRowsPerSecond: Int, mergeFraction: Double) {
    val mergeStep: Long = math.max(1L, math.round(1 / mergeFraction))
    val newKeys: Long = math.max(1L, rows / mergeStep / 10)
    val deleteWidth: Long = math.max(1L, rows / 1000)
  }

  /** A micro-batch: when it started (epoch ms), how long it took and the rows it appended. */
  final case class MicroBatch(atMs: Long, durationMs: Long, rows: Long)

  /** A statement: from its first attempt to its commit (or last failure), the retries on conflicts, the failure. */
  final case class Statement(kind: String, startMs: Long, endMs: Long, retries: Int, error: Option[String]) {
    def ms: Double = (endMs - startMs).toDouble
  }

  final case class StreamFailure(atMs: Long, error: String)

  /** A statement's commit as its table's log records it: whether commits landed after its read, and how many. */
  final case class Commit(kind: String, passed: Long) {
    def rebased: Boolean = passed > 0
  }

  /**
   * One engine's two phases: the stream alone from `startMs` (its start-up over), the statements from
   * `statementsFromMs` to `statementsToMs`.
   */
  final case class Run(engine: String, startMs: Long, statementsFromMs: Long, statementsToMs: Long,
      batches: Seq[MicroBatch], statements: Seq[Statement], failures: Seq[StreamFailure], commits: Seq[Commit]) {
    def phaseAt(ms: Long): String =
      if (ms < startMs) "start-up" else if (ms < statementsFromMs) Alone else if (ms < statementsToMs) WithStatements
      else "after"
    def durations(phase: String): Seq[Double] = batches.filter(b => phaseAt(b.atMs) == phase).map(_.durationMs.toDouble)
    def seconds(ms: Long): Double = (ms - startMs) / 1e3
  }

  def main(args: Array[String]): Unit = {
    val cfg = Config(arg(args, 0, 10000000L)(_.toLong), arg(args, 1, 300)(_.toInt), arg(args, 2, 10)(_.toInt),
      arg(args, 3, 1000)(_.toInt), arg(args, 4, 0.01)(_.toDouble))
    val root = Files.createTempDirectory("streaming-statements-bench").toFile
    val spark = Bench.persistAndDeltaSession("StreamingStatementsBench", new File(root, "shards"),
      // The stream and the statements share the cores fairly (a pool each), as an application
      // running both configures Spark: under FIFO a micro-batch waits for a MERGE's every task.
      Map("spark.sql.streaming.numRecentProgressUpdates" -> "1000000", "spark.scheduler.mode" -> "FAIR"))
    try {
      val deltaVersion = Option(Class.forName("io.delta.tables.DeltaTable").getPackage.getImplementationVersion)
        .getOrElse("?")
      val runs = Seq(Persist, new Delta(new File(root, "delta"))).map(run(spark, _, cfg, root))
      val (stream, statements) = (streamTable(runs, cfg, deltaVersion), statementTable(runs))
      stream.print()
      statements.print()
      BenchOutput.write("streaming-statements.json", "streaming-statements", Seq("rows" -> cfg.rows,
        "seconds" -> cfg.seconds, "intervalS" -> cfg.intervalS, "streamRowsPerSecond" -> cfg.streamRowsPerSecond,
        "mergeFraction" -> cfg.mergeFraction, "spark" -> spark.version, "delta" -> deltaVersion),
        Seq(stream, statements) ++ timelines(runs): _*)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  /** A table the stream appends to and the statements change, as ours or Delta holds it. */
  private sealed trait Engine {
    def name: String
    /** Its name in SQL. */
    def table: String
    def create(spark: SparkSession, rows: DataFrame): Unit
    def stream(rows: DataFrame, checkpoint: String): StreamingQuery
    /** Whether `e` is a statement's failure on a concurrent commit (run it again). */
    def conflict(e: Throwable): Boolean
    /** Where its log is now: the statements' commits are looked for after it. */
    def mark(spark: SparkSession): Long
    def statementCommits(spark: SparkSession, since: Long): Seq[Commit]
  }

  private object Persist extends Engine {
    val name = "ours"
    val table = s"persist.$ShardName"

    def create(spark: SparkSession, rows: DataFrame): Unit = {
      spark.sql(s"CREATE TABLE $table ($Columns) TBLPROPERTIES ('order_by' = 'id')")
      rows.writeTo(table).option("max_rows_per_part", PartRows.toString).append()
    }

    def stream(rows: DataFrame, checkpoint: String): StreamingQuery =
      rows.writeStream.option("checkpointLocation", checkpoint).trigger(Trigger.ProcessingTime("1 second")).toTable(table)

    def conflict(e: Throwable): Boolean = causes(e).exists(_.isInstanceOf[ConcurrentShardUpdate])

    def mark(spark: SparkSession): Long = SessionShards.store(spark).open(ShardName).state.seqNo

    /** The batches appended since state version `since` whose commit records the upper their statement read. */
    def statementCommits(spark: SparkSession, since: Long): Seq[Commit] = {
      val appended = SessionShards.store(spark).open(ShardName).log.statesFrom(since).sliding(2).flatMap {
        case Seq(before, after) =>
          val known = before.batches.iterator.map(_.id).toSet
          after.batches.filter(b => !known(b.id) && b.lower >= before.upper)
        case _ => Nil
      }.toVector
      appended.zipWithIndex.flatMap { case (batch, i) =>
        for (info <- batch.commit; read <- info.readUpper)
          yield Commit(info.operation, appended.take(i).count(_.lower >= read).toLong)
      }
    }
  }

  private final class Delta(dir: File) extends Engine {
    val name = "delta"
    val table = s"delta.`$dir`"

    def create(spark: SparkSession, rows: DataFrame): Unit = {
      spark.sql(s"CREATE TABLE $table ($Columns) USING delta TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
      rows.write.format("delta").mode("append").save(dir.toString)
    }

    def stream(rows: DataFrame, checkpoint: String): StreamingQuery =
      rows.writeStream.format("delta").option("checkpointLocation", checkpoint)
        .trigger(Trigger.ProcessingTime("1 second")).start(dir.toString)

    /** By name: the bench compiles on Spark lines without a Delta release. */
    def conflict(e: Throwable): Boolean = causes(e).exists { c =>
      Iterator.iterate[Class[_]](c.getClass)(_.getSuperclass).takeWhile(_ != null)
        .exists(_.getName == "org.apache.spark.sql.delta.DeltaConcurrentModificationException")
    }

    def mark(spark: SparkSession): Long = spark.sql(s"DESCRIBE HISTORY $table LIMIT 1").head().getAs[Long]("version")

    def statementCommits(spark: SparkSession, since: Long): Seq[Commit] =
      spark.sql(s"DESCRIBE HISTORY $table")
        .where(col("version") > since && col("operation").isin(Kinds: _*))
        .orderBy("version").select("operation", "version", "readVersion").collect().toSeq
        .map(r => Commit(r.getString(0), r.getLong(1) - r.getLong(2) - 1))
  }

  /** The engine's table written, then its stream alone, then its stream beside the statements. */
  private def run(spark: SparkSession, engine: Engine, cfg: Config, root: File): Run = {
    val initial = spark.range(0L, cfg.rows, 1L, math.max(1L, cfg.rows / PartRows).toInt).select(col("id"),
      (col("id") % 1000).cast("double").as("amount"), lit(0L).as("version"),
      timestamp_millis(lit(System.currentTimeMillis())).as("ts"))
    val (_, writeMs) = Bench.timedMs(engine.create(spark, initial))
    println(f"${engine.name}: ${cfg.rows} rows written in ${writeMs / 1e3}%.1f s")
    val source = spark.readStream.format("rate").option("rowsPerSecond", cfg.streamRowsPerSecond.toLong)
      .option("numPartitions", 1L).load()
      .select((lit(cfg.rows) + col("value")).as("id"), (col("value") % 1000).cast("double").as("amount"),
        lit(0L).as("version"), col("timestamp").as("ts"))
    val checkpoint = new File(root, s"checkpoints/${engine.name}").toString
    val stream = new SupervisedStream(() => inPool(spark, "stream")(engine.stream(source, checkpoint)))
    val aloneUntil = stream.warmMs + cfg.seconds * 1000L
    stream.watchUntil(System.currentTimeMillis() >= aloneUntil)
    val mark = engine.mark(spark)
    val from = System.currentTimeMillis()
    println(s"${engine.name}: stream alone done (${stream.failures.size} failures), statements start")
    val statements = Future(runStatements(spark, engine, cfg, from, from + cfg.seconds * 1000L))(ExecutionContext.global)
    stream.watchUntil(statements.isCompleted)
    val done = Await.result(statements, Duration.Inf)
    val to = System.currentTimeMillis()
    val batches = stream.stop()
    Run(engine.name, stream.warmMs, from, to, batches, done, stream.failures.toSeq, engine.statementCommits(spark, mark))
  }

  /** A streaming query restarted from its checkpoint whenever it fails, its failures counted. */
  private final class SupervisedStream(start: () => StreamingQuery) {
    private val queries = ArrayBuffer(start())
    val failures = ArrayBuffer.empty[StreamFailure]

    def watchUntil(done: => Boolean): Unit =
      while (!done) {
        try queries.last.awaitTermination(200)
        catch {
          case e: StreamingQueryException =>
            failures += StreamFailure(System.currentTimeMillis(), describe(e))
            queries += start()
        }
      }

    /** When its first micro-batch, the query's start-up (planning, class loading, the table's first read), was over. */
    val warmMs: Long = {
      watchUntil(queries.last.lastProgress != null)
      System.currentTimeMillis()
    }

    /** Stops the query; every micro-batch its runs made. */
    def stop(): Seq[MicroBatch] = {
      queries.last.stop()
      queries.toSeq.flatMap(_.recentProgress).map { p =>
        MicroBatch(Instant.parse(p.timestamp).toEpochMilli, p.durationMs.get("triggerExecution"), p.numInputRows)
      }.sortBy(_.atMs)
    }
  }

  /** A MERGE and a DELETE at each tick of the interval from `from` until `until`, the same keys for every engine. */
  private def runStatements(spark: SparkSession, engine: Engine, cfg: Config, from: Long, until: Long): Seq[Statement] =
    inPool(spark, "statements")(statementsFrom(spark, engine, cfg, from, until))

  /** `body`, its jobs (and those of a streaming query it starts) in the fair scheduler pool `pool`. */
  private def inPool[T](spark: SparkSession, pool: String)(body: => T): T = {
    spark.sparkContext.setLocalProperty("spark.scheduler.pool", pool)
    try body finally spark.sparkContext.setLocalProperty("spark.scheduler.pool", null)
  }

  private def statementsFrom(spark: SparkSession, engine: Engine, cfg: Config, from: Long, until: Long): Seq[Statement] = {
    val random = new Random(Seed)
    val intervalMs = cfg.intervalS * 1000L
    val out = ArrayBuffer.empty[Statement]
    var (tick, round) = (from, 0)
    while (tick < until) {
      Thread.sleep(math.max(0L, tick - System.currentTimeMillis()))
      val (offset, lo) = (random.nextLong(cfg.mergeStep), random.nextLong(math.max(1L, cfg.rows - cfg.deleteWidth)))
      out += commit(spark, engine, "MERGE", merge(engine.table, cfg, round, offset), until)
      out += commit(spark, engine, "DELETE", s"DELETE FROM ${engine.table} WHERE id >= $lo AND id < ${lo + cfg.deleteWidth}",
        until)
      round += 1
      tick = from + ((System.currentTimeMillis() - from) / intervalMs + 1) * intervalMs
    }
    out.toSeq
  }

  /** Every `mergeStep`-th existing key from `offset` updated, and `newKeys` new (negative) keys of this round inserted. */
  private def merge(table: String, cfg: Config, round: Int, offset: Long): String =
    s"""MERGE INTO $table t USING (
       |  SELECT id * ${cfg.mergeStep} + $offset AS id FROM range(0, ${cfg.rows / cfg.mergeStep})
       |  UNION ALL SELECT -(${round * cfg.newKeys} + id + 1) AS id FROM range(0, ${cfg.newKeys})) s
       |ON t.id = s.id
       |WHEN MATCHED THEN UPDATE SET amount = t.amount + 1, version = ${round + 1}
       |WHEN NOT MATCHED THEN INSERT (id, amount, version, ts) VALUES (s.id, 0.0, ${round + 1}, current_timestamp())
       |""".stripMargin

  /** Runs `sql` until it commits: again after each conflict, until `deadline` (the phase's end) has passed. */
  private def commit(spark: SparkSession, engine: Engine, kind: String, sql: String, deadline: Long): Statement = {
    val start = System.currentTimeMillis()
    @tailrec def attempt(retries: Int): Statement = Try(spark.sql(sql).collect()) match {
      case Success(_) => Statement(kind, start, System.currentTimeMillis(), retries, None)
      case Failure(e) if engine.conflict(e) && System.currentTimeMillis() < deadline => attempt(retries + 1)
      case Failure(e) => Statement(kind, start, System.currentTimeMillis(), retries, Some(describe(e)))
    }
    attempt(0)
  }

  private def causes(e: Throwable): Seq[Throwable] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(50).toSeq

  /** The innermost cause, which names what went wrong (Spark wraps it), on one line. */
  private def describe(e: Throwable): String = {
    val root = causes(e).last
    s"${root.getClass.getName}: ${String.valueOf(root.getMessage).replaceAll("\\s*\\n\\s*", " ")}"
  }

  private def ratio(a: Double, b: Double): Double = if (b > 0) a / b else Double.NaN

  /** `f(xs)`, or NaN (printed `-`, JSON null) when there is no value. */
  private def orNaN(xs: Seq[Double])(f: Seq[Double] => Double): Double = if (xs.isEmpty) Double.NaN else f(xs)

  private def streamTable(runs: Seq[Run], cfg: Config, deltaVersion: String): Table = {
    import Table.Column
    val rows = runs.flatMap { run =>
      val alone = run.durations(Alone)
      Seq(Alone, WithStatements).map { phase =>
        val mine = run.durations(phase)
        Seq[Any](run.engine, phase, mine.size, run.batches.filter(b => run.phaseAt(b.atMs) == phase).map(_.rows).sum,
          orNaN(mine)(median), orNaN(mine)(percentile(_, 0.9)), orNaN(mine)(_.max),
          ratio(orNaN(mine)(median), orNaN(alone)(median)),
          ratio(orNaN(mine)(percentile(_, 0.9)), orNaN(alone)(percentile(_, 0.9))),
          run.failures.count(f => run.phaseAt(f.atMs) == phase))
      }
    }
    Table(s"Stream beside statements: ${cfg.streamRowsPerSecond} rows/s appended every second to ${cfg.rows} rows; " +
      s"a MERGE (${cfg.mergeFraction * 100} % of the keys) and a DELETE every ${cfg.intervalS} s for ${cfg.seconds} s; " +
      s"ours vs Delta $deltaVersion (deletion vectors), local[2]",
      Seq(Column("engine", "engine"), Column("phase", "phase"), Column("micro-batches", "microBatches"),
        Column("rows appended", "rowsAppended"), Column("batch ms median", "batchMsMedian"),
        Column("batch ms p90", "batchMsP90"), Column("batch ms max", "batchMsMax"),
        Column("median / alone", "medianRatio", 2), Column("p90 / alone", "p90Ratio", 2),
        Column("stream failures", "streamFailures")),
      rows,
      Seq("batch ms: StreamingQueryProgress durationMs(triggerExecution) of each micro-batch after the query's first " +
        "(its start-up); the stream's and the statements' jobs share the cores under Spark's FAIR scheduler, a pool each.",
        "stream failures: the query failed and was restarted from its checkpoint (the restart's time is in no batch).") ++
        runs.map { run =>
          val r = ratio(orNaN(run.durations(WithStatements))(median), orNaN(run.durations(Alone))(median))
          s"target (${run.engine}): median micro-batch with statements <= 1.2x the stream alone: ${times(r)} " +
            s"(${verdict(r <= 1.2)})"
        } ++ failureNotes(runs))
  }

  private def failureNotes(runs: Seq[Run]): Seq[String] = runs.flatMap { run =>
    run.failures.groupBy(_.error).toSeq.sortBy(-_._2.size).map { case (error, fs) =>
      s"stream failure (${run.engine}, ${fs.size}x): $error"
    }
  }

  private def statementTable(runs: Seq[Run]): Table = {
    import Table.Column
    val rows = runs.flatMap { run =>
      (Kinds.map(Some(_)) :+ None).map { kind =>
        val mine = run.statements.filter(s => kind.forall(_ == s.kind))
        val committed = mine.filter(_.error.isEmpty)
        val commits = run.commits.filter(c => kind.forall(_ == c.kind))
        val times = if (kind.isEmpty) Nil else committed.map(_.ms) // the kinds' times apart only
        def timed(f: Seq[Double] => Double) = orNaN(times)(f)
        Seq[Any](run.engine, kind.getOrElse("all"), mine.size, committed.size, mine.size - committed.size,
          mine.map(_.retries).sum, ratio(mine.map(_.retries).sum.toDouble, mine.size.toDouble), timed(median),
          timed(percentile(_, 0.9)), timed(_.max), commits.size, commits.count(_.rebased),
          ratio(commits.map(_.passed).sum.toDouble, commits.count(_.rebased).toDouble))
      }
    }
    Table("Statements beside the stream: each run again after a concurrent-commit failure until it commits (or the " +
      "phase is over)",
      Seq(Column("engine", "engine"), Column("statement", "statement"), Column("run", "run"),
        Column("committed", "committed"), Column("failed", "failed"), Column("retries", "retries"),
        Column("retries / statement", "retriesPerStatement", 2), Column("ms median", "msMedian"),
        Column("ms p90", "msP90"), Column("ms max", "msMax"), Column("commits in log", "commitsInLog"),
        Column("after others", "rebased"), Column("commits passed (mean)", "passedMean")),
      rows,
      Seq("ms: from the statement's first attempt to its commit, retries included.",
        "commits in log: the statement commits the table's log holds; after others: those committed after commits that " +
          "landed while they ran (ours: rebased, lower > commit.readUpper; Delta: version > readVersion + 1); commits " +
          "passed: how many landed in between, on average.") ++
        runs.map { run =>
          val committed = run.statements.count(_.error.isEmpty)
          val perStatement = ratio(run.statements.map(_.retries).sum.toDouble, run.statements.size.toDouble)
          f"targets (${run.engine}): every statement commits: $committed/${run.statements.size} " +
            f"(${verdict(committed == run.statements.size)}); retries per statement <= 1: $perStatement%.2f " +
            s"(${verdict(perStatement <= 1)})"
        } ++ runs.flatMap { run =>
          run.statements.flatMap(s => s.error.map(s.kind -> _)).groupBy(identity).toSeq.map { case ((kind, error), n) =>
            s"statement failure (${run.engine}, $kind, ${n.size}x): $error"
          }
        })
  }

  private def verdict(met: Boolean): String = if (met) "met" else "missed"

  private def times(r: Double): String = if (r.isNaN) "-" else f"$r%.2fx"

  /** Every micro-batch, statement and stream failure, in seconds from the engine's stream start, for the plot. */
  private def timelines(runs: Seq[Run]): Seq[Table] = {
    import Table.Column
    Seq(
      Table("micro-batches", Seq(Column("engine", "engine"), Column("phase", "phase"), Column("t s", "t", 3),
        Column("duration ms", "durationMs"), Column("rows", "rows")),
        runs.flatMap(run => run.batches.map(b =>
          Seq[Any](run.engine, run.phaseAt(b.atMs), run.seconds(b.atMs), b.durationMs, b.rows)))),
      Table("statements", Seq(Column("engine", "engine"), Column("statement", "statement"), Column("start s", "start", 3),
        Column("end s", "end", 3), Column("retries", "retries"), Column("error", "error")),
        runs.flatMap(run => run.statements.map(s =>
          Seq[Any](run.engine, s.kind, run.seconds(s.startMs), run.seconds(s.endMs), s.retries, s.error)))),
      Table("stream failures", Seq(Column("engine", "engine"), Column("t s", "t", 3), Column("error", "error")),
        runs.flatMap(run => run.failures.map(f => Seq[Any](run.engine, run.seconds(f.atMs), f.error)))))
  }
}
