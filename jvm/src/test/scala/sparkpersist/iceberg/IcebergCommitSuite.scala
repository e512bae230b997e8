package sparkpersist.iceberg

import java.io.File
import java.util.concurrent.{Callable, Executors}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.QueryTest

import sparkpersist.PersistSparkSession

/**
 * The Iceberg metadata is derived after the commit and never decides it: a failed write of it fails
 * no commit, and the next commit catches up every version it missed; sessions committing at once
 * each write the versions still missing, every version exactly once, through put-if-absent.
 */
class IcebergCommitSuite extends QueryTest with PersistSparkSession with IcebergReading {

  // What the snapshots hold, each written before its statement returns; IcebergAsyncSuite tests the background writer.
  override protected def sparkConf: org.apache.spark.SparkConf =
    super.sparkConf.set(sparkpersist.PersistConf.IcebergAsync.key, "false")

  private def location(table: String): String = store.open(table).dir.toString
  private def version(table: String): Long = store.open(table).state.seqNo

  test("a failed Iceberg write fails no commit; the next commit writes the versions it missed") {
    sql("CREATE TABLE persist.failing (id BIGINT) TBLPROPERTIES ('sparkpersist.iceberg' = 'true')")
    sql("INSERT INTO persist.failing VALUES (1)")
    val metadata = new File(new java.net.URI(location("failing") + "/metadata"))
    val aside = new File(metadata.getParentFile, "metadata-aside")
    // A file where the metadata directory was: no metadata file can be written.
    assert(metadata.renameTo(aside) && metadata.createNewFile())
    sql("INSERT INTO persist.failing VALUES (2)")
    sql("INSERT INTO persist.failing VALUES (3)")
    checkAnswer(sql("SELECT id FROM persist.failing"), Seq(1L, 2L, 3L).map(org.apache.spark.sql.Row(_)))
    assert(metadata.delete() && aside.renameTo(metadata))
    assert(shownVersions(icebergTable(location("failing"))) === Seq(1L))
    sql("INSERT INTO persist.failing VALUES (4)")
    val t = icebergTable(location("failing"))
    assert(shownVersions(t) === Seq(1L, 2L, 3L, 4L))
    assert(icebergRows(t, snapshotOf(t, 3))._1.map(_.getLong(0)).sorted === Seq(1L, 2L, 3L))
    assert(icebergRows(t, t.currentSnapshot())._1.map(_.getLong(0)).sorted === Seq(1L, 2L, 3L, 4L))
  }

  test("sessions appending at once write each version's snapshot once, in version order") {
    sql("CREATE TABLE persist.racing (id BIGINT, writer INT) TBLPROPERTIES ('sparkpersist.iceberg' = 'true')")
    val writers = 3
    val appends = 4
    val pool = Executors.newFixedThreadPool(writers)
    try {
      val done = (0 until writers).map { w =>
        pool.submit(new Callable[Unit] {
          override def call(): Unit = {
            val session = spark.newSession()
            (0 until appends).foreach(i => session.sql(s"INSERT INTO persist.racing VALUES (${w * 100 + i}, $w)").collect())
          }
        })
      }
      done.foreach(_.get())
    } finally pool.shutdown()
    // A hook that lost every race leaves the newest versions to the procedure, as to the next commit.
    sql("CALL persist.system.iceberg('racing')").collect()
    val t = icebergTable(location("racing"))
    val shown = shownVersions(t)
    assert(shown === shown.distinct.sorted, "each version once, oldest first")
    assert(shown.last === version("racing"))
    assert(shown.toSet.subsetOf((1L to version("racing")).toSet))
    val expected = for (w <- 0 until writers; i <- 0 until appends) yield (w * 100 + i).toLong
    assert(icebergRows(t, t.currentSnapshot())._1.map(_.getLong(0)).sorted === expected.sorted)
    // Every snapshot's parent is the snapshot before it: no commit replaced another's.
    val snapshots = t.snapshots().asScala.toSeq.sortBy(_.sequenceNumber())
    snapshots.zip(snapshots.tail).foreach { case (a, b) => assert(b.parentId() === a.snapshotId()) }
  }
}
