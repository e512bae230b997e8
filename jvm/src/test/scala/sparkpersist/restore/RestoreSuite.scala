package sparkpersist.restore

import java.nio.file.Files

import org.apache.spark.sql.{DataFrame, QueryTest, Row}

import sparkpersist.PersistSparkSession
import sparkpersist.isolation.ConcurrentShardUpdate
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{BatchMeta, BatchReplacement, ShardHandle, ShardState, StateListing, StateLog, VersionEntry}

/**
 * RESTORE (issue 52): the shard made equal to an earlier version or time, against `VERSION AS OF`
 * and against plain Spark over a Parquet copy of the rows the shard held at that version (read with
 * Parquet filter pushdown off); below `since` refused; beside an append (kept) and a DELETE (conflict).
 */
class RestoreSuite extends QueryTest with PersistSparkSession {

  /** `df`'s rows as plain Spark reads them back from a Parquet copy. */
  private def oracle(df: DataFrame): Seq[Row] = {
    val dir = Files.createTempDirectory("restore-oracle").resolve("rows").toString
    df.write.parquet(dir)
    withSQLConf("spark.sql.parquet.filterPushdown" -> "false")(spark.read.parquet(dir).collect().toSeq)
  }

  test("RESTORE TABLE ... TO VERSION AS OF n equals the shard at version n: duplicates, nulls, every later statement undone") {
    sql("CREATE TABLE persist.r (k INT, v STRING, d DOUBLE) TBLPROPERTIES ('order_by' = 'k')")
    sql("INSERT INTO persist.r VALUES (1, 'a', 1.0), (1, 'a', 1.0), (2, NULL, NULL), (3, 'c', 3.5)")
    sql("INSERT INTO persist.r VALUES (4, 'd', 4.0), (1, 'a', 1.0)")
    val atTwo = oracle(spark.table("persist.r"))
    sql("DELETE FROM persist.r WHERE k = 1")
    sql("UPDATE persist.r SET v = 'C' WHERE k = 3")
    sql("INSERT INTO persist.r VALUES (5, 'e', 5.0), (2, NULL, NULL)")
    val atFive = oracle(spark.table("persist.r"))
    val result = sql("RESTORE TABLE persist.r TO VERSION AS OF 2").collect().head
    checkAnswer(spark.table("persist.r"), atTwo)
    checkAnswer(sql("SELECT * FROM persist.r VERSION AS OF 2"), atTwo)
    checkAnswer(sql("SELECT * FROM persist.r VERSION AS OF 5"), atFive) // history kept
    val after = store.open("r").state
    val batch = after.batches.last
    assert(result.getAs[String]("shard") === "r" && result.getAs[Long]("version") === 2L)
    assert(result.getAs[String]("batch_id") === batch.id && result.getAs[Long]("upper") === batch.upper)
    // Back: three (1, a) and (3, c); away: (3, C), (5, e) and the second (2, null).
    assert(result.getAs[Long]("num_restored_rows") === 4L && result.getAs[Long]("num_retracted_rows") === 3L)
    assert(result.getAs[Int]("num_added_parts") === batch.partCount && result.getAs[Long]("added_bytes") === batch.bytes)
    assert(result.getAs[Int]("num_of_parts_after_restore") === after.parts.count(!_.negated))
    val history = sql("SELECT operation, operationParameters, operationMetrics, readUpper, readVersion FROM persist.r.history " +
      "WHERE version = 6").collect().head
    assert(history.getString(0) === "RESTORE")
    assert(history.getMap[String, String](1).toMap === Map("version" -> "2", "asOf" -> result.getAs[Long]("as_of").toString))
    val metrics = history.getMap[String, String](2)
    assert(metrics("numRestoredRows") === "4" && metrics("numRetractedRows") === "3")
    assert(history.getLong(3) === batch.lower && history.getLong(4) === 5L)
    // Restoring the version it already equals commits nothing.
    val again = sql("CALL persist.system.restore(shard => 'r', version => 2)").collect().head
    assert(again.isNullAt(again.fieldIndex("batch_id")) && again.getAs[Long]("num_restored_rows") === 0L)
    assert(store.open("r").state.seqNo === after.seqNo)
  }

  test("TIMESTAMP AS OF, in SQL and in the procedure; a version below since is refused as a read is") {
    sql("CREATE TABLE persist.rt (k INT) TBLPROPERTIES ('order_by' = 'k')")
    sql("INSERT INTO persist.rt VALUES (1), (2)")
    val first = store.open("rt").state.upper - 1
    val atFirst = oracle(spark.table("persist.rt"))
    sql("INSERT INTO persist.rt VALUES (3)")
    sql("DELETE FROM persist.rt WHERE k = 1")
    val ts = java.time.Instant.ofEpochMilli(first).toString
    sql(s"restore persist.rt to timestamp as of '$ts'").collect()
    checkAnswer(spark.table("persist.rt"), atFirst)
    sql("INSERT INTO persist.rt VALUES (9)")
    val restored = sql(s"CALL persist.system.restore(shard => 'rt', timestamp => TIMESTAMP '$ts')").collect().head
    assert(restored.getAs[Long]("num_retracted_rows") === 1L && restored.isNullAt(restored.fieldIndex("version")))
    checkAnswer(spark.table("persist.rt"), atFirst)

    def failure(q: String): String = intercept[Exception](sql(q).collect()).getMessage
    val both = failure(s"CALL persist.system.restore(shard => 'rt', version => 1, timestamp => TIMESTAMP '$ts')")
    assert(both.contains("needs exactly one of version"), both)
    sql("CALL persist.system.compact('rt', retention_ms => 0)").collect()
    val since = store.open("rt").state.since
    val compacted = failure("RESTORE TABLE persist.rt TO VERSION AS OF 1")
    assert(compacted.contains(s"history before since = $since has been compacted"), compacted)
  }

  test("beside an append committed meanwhile RESTORE keeps its rows; beside a DELETE it conflicts") {
    sql("CREATE TABLE persist.rc (k INT) TBLPROPERTIES ('order_by' = 'k')")
    sql("INSERT INTO persist.rc VALUES (1), (2)")
    sql("INSERT INTO persist.rc VALUES (3)")
    val atOne = oracle(sql("SELECT * FROM persist.rc VERSION AS OF 1"))
    val read = store.open("rc").state.upper
    val kept = Restore(spark, beforeCommit("rc")(sql("INSERT INTO persist.rc VALUES (7)")), RestoreTarget.Version(1))
    checkAnswer(spark.table("persist.rc"), atOne :+ Row(7))
    val batches = store.open("rc").state.batches
    // Committed after the append, which it kept: its read upper is below its lower.
    assert(kept.batch.map(_.id).contains(batches.last.id) && batches.last.lower === batches.init.last.upper)
    assert(batches.last.commit.flatMap(_.readUpper).contains(read) && read < batches.last.lower)
    val e = intercept[Exception](
      Restore(spark, beforeCommit("rc")(sql("DELETE FROM persist.rc WHERE k = 2")), RestoreTarget.Version(2)))
    val conflict = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).collectFirst {
      case c: ConcurrentShardUpdate => c
    }
    assert(conflict.isDefined, e)
    checkAnswer(spark.table("persist.rc"), Seq(Row(1), Row(7)))
  }

  /** The shard `name`, whose next statement commit runs `commit` first (once): another writer winning the race. */
  private def beforeCommit(name: String)(commit: => Unit): ShardHandle = {
    val h = store.open(name)
    new ShardHandle(name, h.dir, new CommitFirst(h.log, () => commit), h.fs)
  }

  private final class CommitFirst(inner: StateLog, first: () => Unit) extends StateLog {
    private var pending = true
    override def current(): ShardState = inner.current()
    override def compareAndAppend(expectedUpper: Long, batch: BatchMeta): ShardState = inner.compareAndAppend(expectedUpper, batch)
    override def compareAndAppend(expectedUpper: Long, batch: BatchMeta, writtenUnder: ShardSchema,
        alteredFrom: Option[ShardSchema]): ShardState = inner.compareAndAppend(expectedUpper, batch, writtenUnder, alteredFrom)
    override def appendOnto(writtenUnder: ShardSchema, alteredFrom: Option[ShardSchema])(
        onto: ShardState => BatchMeta): ShardState = {
      if (pending) {
        pending = false
        first()
      }
      inner.appendOnto(writtenUnder, alteredFrom)(onto)
    }
    override def alterSchema(change: ShardSchema => ShardSchema): ShardState = inner.alterSchema(change)
    override def downgradeSince(newSince: Long): ShardState = inner.downgradeSince(newSince)
    override def replaceBatches(replacements: Seq[BatchReplacement]): (ShardState, Seq[BatchReplacement]) =
      inner.replaceBatches(replacements)
    override def history(limit: Int): IndexedSeq[VersionEntry] = inner.history(limit)
    override def listing(): StateListing = inner.listing()
    override def statesFrom(seqNo: Long): Iterator[ShardState] = inner.statesFrom(seqNo)
    override def truncateBefore(seqNo: Long): Seq[String] = inner.truncateBefore(seqNo)
  }
}
