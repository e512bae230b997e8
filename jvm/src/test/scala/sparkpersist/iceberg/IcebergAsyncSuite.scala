package sparkpersist.iceberg

import java.io.File
import java.nio.file.Files
import java.util.concurrent.{CountDownLatch, TimeUnit}
import java.util.concurrent.atomic.{AtomicInteger, AtomicReference}

import org.apache.spark.sql.{QueryTest, Row}

import sparkpersist.{ChildJvm, PersistConf, PersistSparkSession}

/**
 * The background writer of the Iceberg metadata (`spark.sparkpersist.iceberg.async`, on by default):
 * a statement returns once its commit is decided, before the snapshot is written; requests made while a
 * sync runs coalesce into one more run; a failed sync fails no statement; the procedure waits for the
 * pending syncs of its shard, and the application's stop for all of them. Each test holds the worker
 * through [[IcebergSyncQueue.beforeSync]] where it must observe what is not yet written.
 */
class IcebergAsyncSuite extends QueryTest with PersistSparkSession with IcebergReading {
  import testImplicits._

  private val WaitMs = 120000L

  private def location(table: String): String = store.open(table).dir.toString
  private def version(table: String): Long = store.open(table).state.seqNo
  private def settled(table: String): Unit = assert(IcebergSyncQueue.awaitShard(store.open(table), WaitMs))

  private def create(table: String): Unit =
    sql(s"CREATE TABLE persist.$table (id BIGINT, name STRING) TBLPROPERTIES ('sparkpersist.iceberg' = 'true')")

  private def insert(table: String, from: Long, until: Long): Unit =
    sql(s"INSERT INTO persist.$table SELECT id, concat('n', id) FROM range($from, $until)")

  /** The oracle: plain Spark over a plain Parquet copy of the rows with ids `ids`. */
  private def expected(ids: Seq[Long]): Seq[String] = plainParquet(ids.toDF("id").selectExpr("id", "concat('n', id) AS name"), "true")

  private def shown(table: String, v: Long): Seq[String] = {
    val t = icebergTable(location(table))
    icebergRows(t, snapshotOf(t, v))._1.map(_.toString).sorted
  }

  test("the statement returns before the snapshot is written; requests meanwhile coalesce into one more run") {
    create("held")
    val gate = new CountDownLatch(1)
    val runs = new AtomicInteger
    IcebergSyncQueue.beforeSync = _ => { runs.incrementAndGet(); gate.await() }
    try {
      insert("held", 0, 10)
      insert("held", 10, 20)
      insert("held", 20, 30)
      sql("DELETE FROM persist.held WHERE id % 3 = 0")
      // Committed and readable, while no metadata is written yet.
      assert(version("held") === 4)
      checkAnswer(sql("SELECT count(*) FROM persist.held"), Row(20L))
      assert(!new File(new java.net.URI(location("held") + "/metadata")).exists())
      assert(!IcebergSyncQueue.awaitShard(store.open("held"), 0))
    } finally gate.countDown()
    settled("held")
    IcebergSyncQueue.beforeSync = _ => ()
    // One run was held; the three requests made while it was held became one more run, after it.
    assert(runs.get === 2)
    // Every version committed with the property has its snapshot, the first included.
    assert(shownVersions(icebergTable(location("held"))) === Seq(1L, 2L, 3L, 4L))
    assert(shown("held", 1) === expected(0L until 10L))
    assert(shown("held", 3) === expected(0L until 30L))
    assert(shown("held", 4) === expected((0L until 30L).filter(_ % 3 != 0)))
  }

  test("a burst of commits: every version shown exactly once, each equal to a plain Parquet copy") {
    create("burst")
    insert("burst", 0, 5)
    settled("burst")
    var ids: Seq[Long] = 0L until 5L
    var byVersion = Map(version("burst") -> ids)
    (1 to 8).foreach { i =>
      if (i % 4 == 0) {
        sql(s"DELETE FROM persist.burst WHERE id % 4 = ${i / 4}")
        ids = ids.filter(_ % 4 != i / 4)
      } else {
        insert("burst", i * 5L, i * 5L + 5)
        ids = ids ++ (i * 5L until i * 5L + 5)
      }
      byVersion += version("burst") -> ids
    }
    settled("burst")
    assert(shownVersions(icebergTable(location("burst"))) === (1L to version("burst")))
    byVersion.foreach { case (v, rows) => assert(shown("burst", v) === expected(rows), s"version $v") }
  }

  test("a failing background sync fails no statement; the procedure then writes every version missing") {
    create("failing")
    insert("failing", 0, 3)
    settled("failing")
    val metadata = new File(new java.net.URI(location("failing") + "/metadata"))
    val aside = new File(metadata.getParentFile, "metadata-aside")
    // A file where the metadata directory was: no metadata file can be written.
    assert(metadata.renameTo(aside) && metadata.createNewFile())
    insert("failing", 3, 6)
    insert("failing", 6, 9)
    settled("failing")
    checkAnswer(sql("SELECT id FROM persist.failing"), (0L until 9L).map(Row(_)))
    assert(metadata.delete() && aside.renameTo(metadata))
    assert(shownVersions(icebergTable(location("failing"))) === Seq(1L))
    val status = sql("CALL persist.system.iceberg('failing')").collect().head
    assert((status.getLong(0), status.getInt(5), status.isNullAt(6)) === (3L, 2, true))
    assert(shownVersions(icebergTable(location("failing"))) === Seq(1L, 2L, 3L))
    assert(shown("failing", 3) === expected(0L until 9L))
  }

  test("the procedure waits for the shard's pending sync, so its row is current") {
    create("waited")
    insert("waited", 0, 4)
    settled("waited")
    val gate = new CountDownLatch(1)
    val reached = new CountDownLatch(1)
    IcebergSyncQueue.beforeSync = _ => { reached.countDown(); gate.await() }
    val row = new AtomicReference[Row]
    val call = new Thread(() => row.set(sql("CALL persist.system.iceberg('waited')").collect().head))
    try {
      insert("waited", 4, 8)
      assert(reached.await(WaitMs, TimeUnit.MILLISECONDS))
      call.start()
      call.join(2000)
      assert(call.isAlive, "the procedure waits behind the held sync")
    } finally {
      IcebergSyncQueue.beforeSync = _ => ()
      gate.countDown()
    }
    call.join()
    // Released, the held sync wrote version 2; the procedure, after it, wrote nothing.
    assert((row.get.getLong(0), row.get.getInt(5)) === (2L, 0))
    assert(shownVersions(icebergTable(location("waited"))) === Seq(1L, 2L))
  }

  test("with spark.sparkpersist.iceberg.async off, read at commit time, the statement writes its snapshot") {
    create("inline")
    val runs = new AtomicInteger
    IcebergSyncQueue.beforeSync = _ => { runs.incrementAndGet(); () }
    try withSQLConf(PersistConf.IcebergAsync.key -> "false") {
      insert("inline", 0, 5)
      assert(shownVersions(icebergTable(location("inline"))) === Seq(1L))
      insert("inline", 5, 7)
      assert(shownVersions(icebergTable(location("inline"))) === Seq(1L, 2L))
    } finally IcebergSyncQueue.beforeSync = _ => ()
    assert(runs.get === 0)
    assert(shown("inline", 2) === expected(0L until 7L))
  }

  test("an application that commits and stops at once leaves the metadata at its last version") {
    val root = Files.createTempDirectory("iceberg-stop").toFile
    val child = ChildJvm.start(IcebergStopApp, Seq(root.toURI.toString))
    assert(child.await() === 0, child.errorTail)
    assert(child.lines.filter(_.startsWith("versions ")) === Seq("versions 3 shown 1,2,3"), child.errorTail)
  }
}
