package sparkpersist.isolation

import java.nio.file.Files
import java.util.concurrent.{CountDownLatch, Executors}
import java.util.concurrent.atomic.AtomicInteger

import scala.collection.mutable
import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._
import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.hadoop.fs.Path
import org.apache.logging.log4j.Level
import org.apache.logging.log4j.core.config.Configurator
import org.apache.spark.SparkConf
import org.apache.spark.sql.{Encoders, Row, SparkSession}
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream
import org.apache.spark.sql.streaming.{StreamingQuery, StreamingQueryException}

import sparkpersist.{ChildJvm, PersistConf, PersistSparkSession}
import sparkpersist.shard.{BatchMeta, UpperMismatch}

/**
 * Races on one shard: threads of this process (each in a session of its own) append, run `DELETE`,
 * `UPDATE`, `MERGE` and `INSERT OVERWRITE`, compact and collect garbage, a streaming query appends
 * micro-batches, and another process ([[RaceChild]]) appends and runs statements, all at once.
 * Afterwards an oracle replays the shard's state log with plain Spark: each appended batch, named by
 * its commit's userMetadata, is either an append (its rows known to the test, or, of the stream,
 * read from its part files by Spark's Parquet reader) or a statement, whose effect Spark's own
 * in-memory table of row-level operations computes on the rows as of the upper it read, applied
 * where its batch committed. The shard must then read as the oracle in every pushdown mode, earlier
 * versions as they were, every op that succeeded must have committed once (or have been a no-op)
 * and every op that failed not at all. Under `Serializable`, a statement that moved past commits
 * must have the effect it would have had on the rows it committed after.
 */
class StatementRaceSuite extends PersistSparkSession {
  import StatementRaceSuite._

  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.catalog.oracle", "org.apache.spark.sql.connector.catalog.InMemoryRowLevelOperationTableCatalog")

  private val Workers = 3
  private val OpsPerWorker = 5
  private val ChildOps = 5
  private val StreamChunks = 3
  private val MaxStreamRestarts = 30

  /** Where Spark reports, as errors, each write and streaming query that loses a race here on purpose. */
  private val racingLoggers = Seq("org.apache.spark.sql.execution.datasources.v2", "org.apache.spark.sql.execution.streaming")

  /** The other process, started first (its Spark starts while this one's does). */
  private var child: ChildJvm = _

  override def beforeAll(): Unit = {
    child = ChildJvm.start(RaceChild, Seq(root.toURI.toString))
    super.beforeAll()
    racingLoggers.foreach(Configurator.setLevel(_, Level.OFF))
  }

  override def afterAll(): Unit =
    try {
      if (child.isAlive) child.send("EXIT")
      val exit = child.await()
      if (exit != 0) throw new IllegalStateException(s"the race's other process exited with $exit: ${child.errorTail}")
    } finally {
      racingLoggers.foreach(Configurator.setLevel(_, Level.ERROR))
      super.afterAll()
    }

  private def upper(shard: String): Long = store.open(shard).state.upper

  private def sorted(rows: Seq[Row]): Seq[String] = rows.map(_.toString).sorted

  /**
   * Appends `StreamChunks` micro-batches of fresh rows to `shard` by a streaming query of `session`
   * (userMetadata `s<seed>-stream`), restarted from its checkpoint whenever a micro-batch lost the
   * race for the upper to another commit, as a scheduler would.
   */
  private def stream(session: SparkSession, shard: String, seed: Long): Streamed = {
    val input = MemoryStream[(Int, Long, String)](Encoders.product[(Int, Long, String)], session)
    val checkpoint = Files.createTempDirectory(root.toPath, "checkpoint").toFile.getCanonicalPath
    session.conf.set(PersistConf.CommitUserMetadata.key, s"s$seed-stream")
    def start(): StreamingQuery = input.toDF().toDF("k", "v", "tag").writeStream
      .option("checkpointLocation", checkpoint).toTable(s"persist.$shard")
    def drained(query: StreamingQuery): Boolean =
      try { query.processAllAvailable(); true }
      catch { case e: StreamingQueryException if RaceOps.causeOf[UpperMismatch](e).nonEmpty => false }
    val random = new Random(seed)
    val chunks = Seq.tabulate(StreamChunks)(c => Seq.tabulate(3)(j => (random.nextInt(40), random.nextInt(1000).toLong, s"s$seed-stream-$c.$j")))
    var query = start()
    var restarts = 0
    try {
      chunks.foreach { chunk =>
        input.addData(chunk)
        while (!drained(query)) {
          restarts += 1
          assert(restarts <= MaxStreamRestarts, "the streaming query lost the race too often")
          query = start()
        }
      }
    } finally query.stop()
    Streamed(chunks.flatten.map { case (k, v, tag) => Row(k, v, tag) }, restarts)
  }

  private val oracleTables = new AtomicInteger

  /**
   * The rows `statement` removes and adds when it runs on `rows`, run by Spark on its in-memory
   * table of row-level operations (duplicates counted).
   */
  private def effect(statement: String, rows: Seq[Row]): (Seq[Row], Seq[Row]) = {
    val table = s"oracle.t${oracleTables.incrementAndGet()}"
    sql(s"CREATE TABLE $table (${RaceOps.Columns})")
    try {
      if (rows.nonEmpty) spark.createDataFrame(rows.asJava, RaceOps.schema).writeTo(table).append()
      // The in-memory table's own metadata-only delete fails on unpartitioned tables: row by row it is.
      withSQLConf("spark.sql.optimizer.excludedRules" ->
          "org.apache.spark.sql.execution.datasources.v2.OptimizeMetadataOnlyDeleteFromTable") {
        sql(statement.replace("{t}", table)).collect()
      }
      val after = sql(s"SELECT * FROM $table").collect().toSeq
      (rows.diff(after), after.diff(rows))
    } finally sql(s"DROP TABLE $table")
  }

  /** The rows of a batch's part files, read by Spark's own Parquet reader (no filter pushed into it). */
  private def partRows(shard: String, batch: BatchMeta): Seq[Row] = {
    val dir = store.open(shard).dir
    val paths = batch.parts.map(p => new Path(dir, p.fileKey).toString).toSeq
    if (paths.isEmpty) Nil
    else withSQLConf("spark.sql.parquet.filterPushdown" -> "false") {
      spark.read.schema(RaceOps.schema).parquet(paths: _*).collect().toSeq
    }
  }

  /**
   * Replays the state log of `shard`: the oracle's rows after every version, and the batches
   * appended in order. A version appends at most one batch (one whose lower is at least the
   * previous upper); compactions' and gcs' versions keep the rows.
   */
  private def replay(shard: String, level: IsolationLevel, ops: Map[String, RaceOp], streamId: String)
      : (IndexedSeq[Version], IndexedSeq[Appended]) = {
    val states = store.open(shard).log.statesFrom(0).toVector
    val versions = mutable.ArrayBuffer(Version(0L, 0L, Nil))
    val appended = mutable.ArrayBuffer.empty[Appended]
    val atUpper = mutable.Map(0L -> Seq.empty[Row])
    states.zip(states.tail).foreach { case (before, after) =>
      val known = before.batches.map(_.id).toSet
      val added = after.batches.filter(b => !known(b.id) && b.lower >= before.upper)
      assert(added.size <= 1, s"version ${after.seqNo} appends ${added.size} batches")
      val rows = added.foldLeft(versions.last.rows) { (rows, batch) =>
        val id = batch.commit.flatMap(_.userMetadata).getOrElse(
          fail(s"batch ${batch.id} of version ${after.seqNo} records no userMetadata: ${batch.commit}"))
        appended += Appended(batch, id)
        ops.get(id) match {
          case Some(Append(_, appendRows, _)) => rows ++ appendRows
          case Some(Statement(_, text)) =>
            val readUpper = batch.commit.flatMap(_.readUpper).getOrElse(fail(s"statement $id records no read upper"))
            val read = atUpper.getOrElse(readUpper, fail(s"$id read the shard at upper $readUpper, which no version had"))
            val (removed, inserted) = effect(text, read)
            val what = s"$id (read at upper $readUpper, committed at ${batch.lower} in version ${after.seqNo}): $text"
            assert(removed.diff(rows).isEmpty, s"$what removes rows no longer there: ${removed.diff(rows)}")
            if (level == IsolationLevel.Serializable && batch.lower > readUpper) {
              val (removedThen, insertedThen) = effect(text, rows)
              assert((sorted(removedThen), sorted(insertedThen)) === ((sorted(removed), sorted(inserted))),
                s"$what: under Serializable its effect must be that on the rows it committed after")
            }
            rows.diff(removed) ++ inserted
          case _ if id == streamId => rows ++ partRows(shard, batch)
          case _ => fail(s"batch ${batch.id} of version ${after.seqNo} was committed by '$id', no op of this race")
        }
      }
      atUpper(after.upper) = rows
      versions += Version(after.seqNo, after.upper, rows)
    }
    (versions.toIndexedSeq, appended.toIndexedSeq)
  }

  Seq(1L -> IsolationLevel.WriteSerializable, 2L -> IsolationLevel.WriteSerializable, 3L -> IsolationLevel.Serializable)
    .foreach { case (seed, level) =>
      test(s"racing appends, a stream, statements, compactions and gcs of two processes read as the oracle (seed $seed, $level)") {
        withClue(s"seed $seed: ") {
          race(seed, level)
        }
      }
    }

  private def race(seed: Long, level: IsolationLevel): Unit = {
    val shard = s"race$seed"
    sql(s"CREATE TABLE persist.$shard (${RaceOps.Columns}) " +
      s"TBLPROPERTIES ('order_by' = 'k', '${IsolationLevel.Property}' = '$level')")
    val opening = Append(s"s$seed-open", Seq.tabulate(16)(j => Row(j * 5 / 2, j * 61L % 1000, s"s$seed-open.$j")), bySql = true)
    assert(RaceOps.run(spark.newSession(), shard, opening, () => upper(shard)).result === Outcome.Ok)
    val ours = (0 until Workers).map(w => RaceOps.ops(seed, s"w$w", OpsPerWorker, maintains = true))
    val theirs = RaceOps.ops(seed, "c", ChildOps, maintains = false)
    val started = System.nanoTime()
    val (outcomes, streamed) = racing(shard, seed, ours, theirs)
    val raceSeconds = (System.nanoTime() - started) / 1e9

    val errors = outcomes.filter(_.result == Outcome.Error)
    assert(errors.isEmpty, s"unexpected failures:\n${errors.map(o => s"${o.id}: ${o.error}").mkString("\n")}")
    val ops = ours.flatten ++ theirs
    assert(outcomes.map(_.id).sorted === ops.map(_.id).sorted)
    val byId: Map[String, RaceOp] = (opening +: ops).map(o => o.id -> o).toMap
    val streamId = s"s$seed-stream"
    val (versions, appended) = replay(shard, level, byId, streamId)

    // The shard now, in every pushdown mode, and a sample of its earlier versions (each in one
    // mode), by VERSION AS OF and by the session's as-of, read as the oracle has them.
    assert(inEveryMode(s"SELECT * FROM persist.$shard")._1 === sorted(versions.last.rows))
    new Random(seed).shuffle(versions.filter(_.upper > 0)).take(4).zipWithIndex.foreach { case (v, i) =>
      val mode = Seq("on", "soft", "off")(i % 3)
      val rows = if (i % 2 == 0) inMode(mode, s"SELECT * FROM persist.$shard VERSION AS OF ${v.seqNo}")._1
        else withSQLConf(PersistConf.AsOf.key -> (v.upper - 1).toString)(inMode(mode, s"SELECT * FROM persist.$shard")._1)
      assert(rows === sorted(v.rows), s"version ${v.seqNo} (upper ${v.upper}), pushdown $mode")
    }

    // Every op that succeeded committed once, or, a statement, changed nothing; no other op committed.
    val commits = appended.groupBy(_.op).view.mapValues(_.size).toMap
    assert(commits.getOrElse(opening.id, 0) === 1)
    val unchanged = outcomes.filter { o =>
      val count = commits.getOrElse(o.id, 0)
      (o.result, byId(o.id)) match {
        case (Outcome.Ok, Statement(_, text)) if count == 0 =>
          // Then it must change nothing on some version it may have read.
          val read = versions.filter(v => v.upper >= o.upperBefore && v.upper <= o.upperAfter).map(_.rows).distinct
          assert(read.exists(rows => effect(text, rows) == ((Nil, Nil))),
            s"${o.id} succeeded and committed nothing, but changes every version it may have read: $text")
          true
        case (Outcome.Ok, _: Maintenance) => assert(count === 0, o.id); false
        case (Outcome.Ok, _) => assert(count === 1, s"${o.id} succeeded"); false
        case (_, _) => assert(count === 0, s"${o.id} ${o.result}"); false
      }
    }

    // The stream's micro-batches: each epoch committed once, together exactly the rows it was given.
    val streamBatches = appended.filter(_.op == streamId).map(_.batch)
    assert(streamBatches.flatMap(_.epochs).distinct.size === streamBatches.size)
    assert(sorted(streamBatches.flatMap(partRows(shard, _))) === sorted(streamed.rows))

    val statements = appended.map(_.batch).filter(_.commit.exists(_.readUpper.nonEmpty))
    val kinds = statements.groupBy(_.commit.get.operation).toSeq.sortBy(_._1).map { case (k, b) => s"$k ${b.size}" }
    val rebased = statements.count(b => b.commit.flatMap(_.readUpper).exists(_ < b.lower))
    def count(result: String, kind: RaceOp => Boolean) = outcomes.count(o => o.result == result && kind(byId(o.id)))
    info(f"seed $seed ($level): race ${raceSeconds}%.1f s, ${versions.size - 1} versions (${versions.last.rows.size} " +
      s"rows); statements: ${statements.size} committed (${kinds.mkString(", ")}), $rebased of them rebased, " +
      s"${unchanged.size} changed nothing, ${count(Outcome.Conflict, _.isInstanceOf[Statement])} conflicted; appends: " +
      s"${count(Outcome.Ok, _.isInstanceOf[Append])} committed, ${outcomes.map(_.lostAttempts).sum} attempts lost the " +
      s"race, ${count(Outcome.Lost, _.isInstanceOf[Append])} appends lost all ${RaceOps.AppendAttempts}; stream: " +
      s"${streamBatches.size} micro-batches, ${streamed.restarts} restarts; " +
      s"${count(Outcome.Ok, _.isInstanceOf[Maintenance])} compactions and gcs")
  }

  /**
   * Runs `ours` (the ops of each worker thread, each in a session of its own), the stream and
   * `theirs` (in the other process) on `shard`, all starting together; their outcomes.
   */
  private def racing(shard: String, seed: Long, ours: Seq[Seq[RaceOp]], theirs: Seq[RaceOp]): (Seq[Outcome], Streamed) = {
    assert(child.awaitLine("READY"), child.errorTail)
    val go = new CountDownLatch(1)
    val pool = Executors.newFixedThreadPool(ours.size + 1)
    implicit val threads: ExecutionContext = ExecutionContext.fromExecutorService(pool)
    try {
      val workers = ours.map { ops =>
        val session = spark.newSession()
        Future { go.await(); ops.map(RaceOps.run(session, shard, _, () => upper(shard))) }
      }
      val streaming = { val session = spark.newSession(); Future { go.await(); stream(session, shard, seed) } }
      child.send(s"RUN $shard $seed ${theirs.size}")
      go.countDown()
      val outcomes = Await.result(Future.sequence(workers), 5.minutes).flatten
      assert(child.awaitLine(s"END $shard"), child.errorTail)
      val ids = theirs.map(_.id).toSet
      val childOutcomes = child.lines.filter(_.startsWith("OUTCOME ")).map(Outcome.parse).filter(o => ids(o.id))
      (outcomes ++ childOutcomes, Await.result(streaming, 5.minutes))
    } finally {
      go.countDown()
      pool.shutdown()
    }
  }
}

object StatementRaceSuite {
  /** What the streaming query appended: its rows, and how often it was restarted after losing a race. */
  private final case class Streamed(rows: Seq[Row], restarts: Int)

  /** The shard's rows after one state version, as the oracle has them. */
  private final case class Version(seqNo: Long, upper: Long, rows: Seq[Row])

  /** A batch the oracle found appended to the log, and the op whose userMetadata it records. */
  private final case class Appended(batch: BatchMeta, op: String)
}
