package sparkpersist.shard

import java.nio.file.Files
import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration.Duration

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.hdfs.MiniDFSCluster
import org.apache.spark.SparkConf
import org.apache.spark.sql.{QueryTest, Row}

import sparkpersist.{PersistConf, PersistSparkSession}
import sparkpersist.catalog.PersistCatalog
import sparkpersist.reliability.{AuditedStore, ConcurrentWritersRun, CrashRun, CrashingWriter}

/**
 * Commits on a real HDFS (Hadoop's MiniDFSCluster: a name node and a data node in this JVM,
 * reached over RPC by this session and by writer processes): the store's primitive is rename
 * without overwrite, of racing creators exactly one wins, writers in separate processes race
 * appends, writers killed at each step of a commit lose no acknowledged batch, and SQL DML
 * commits there as on local disk. The catalog `hdfs` reads shards under `hdfs://…/shards`.
 */
class HdfsCommitSuite extends QueryTest with PersistSparkSession {

  private lazy val cluster: MiniDFSCluster = {
    val conf = new Configuration()
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, Files.createTempDirectory("minidfs").toString)
    val c = new MiniDFSCluster.Builder(conf).numDataNodes(1).build()
    c.waitActive()
    c
  }

  private lazy val hdfsRoot: String = s"${cluster.getFileSystem.getUri}/shards"

  private lazy val onHdfs = AuditedStore(hdfsRoot, "hdfs")

  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.catalog.hdfs", classOf[PersistCatalog].getName)
    .set("spark.sql.catalog.hdfs.root", hdfsRoot)
    .set("spark.hadoop.dfs.replication", "1")

  // The cluster stops first, so that the suite's thread audit (after the session) sees its threads gone.
  override def afterAll(): Unit =
    try cluster.shutdown(true) finally super.afterAll()

  test("HDFS commits by rename without overwrite: of racing creators of one file, exactly one wins") {
    val conf = spark.sessionState.newHadoopConf()
    val dir = new Path(s"$hdfsRoot/put-race")
    val fs = dir.getFileSystem(conf)
    fs.mkdirs(dir)
    val put = PutIfAbsent.forStore(fs, dir, conf)
    assert(put.name === "rename without overwrite")
    val target = new Path(dir, "v1")
    val writers = 8
    val pool = Executors.newFixedThreadPool(writers)
    implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(pool)
    try {
      val start = new CountDownLatch(1)
      val won = (0 until writers).map { i =>
        Future { start.await(); i -> put(target, s"writer $i".getBytes("UTF-8")) }
      }
      start.countDown()
      val winners = won.map(Await.result(_, Duration(2, TimeUnit.MINUTES))).collect { case (i, true) => i }
      assert(winners.size === 1, s"winners: $winners")
      val in = fs.open(target)
      val content = try new String(in.readAllBytes(), "UTF-8") finally in.close()
      assert(content === s"writer ${winners.head}")
      assert(fs.listStatus(dir).map(_.getPath.getName).toSeq === Seq("v1"), "temp files left behind")
    } finally pool.shutdown()
  }

  test("ALTER TABLE RENAME on HDFS moves the shard with one rename, within the catalog and between paths") {
    sql("CREATE NAMESPACE hdfs.archive")
    sql("CREATE TABLE hdfs.moving (id BIGINT)")
    sql("INSERT INTO hdfs.moving VALUES (1), (2)")
    sql("ALTER TABLE hdfs.moving RENAME TO archive.moved")
    checkAnswer(sql("SELECT id FROM hdfs.archive.moved"), Seq(Row(1L), Row(2L)))
    val (from, to) = (s"${cluster.getFileSystem.getUri}/paths/a", s"${cluster.getFileSystem.getUri}/paths/b")
    sql(s"CREATE TABLE hdfs.`$from` (id BIGINT)")
    sql(s"INSERT INTO hdfs.`$from` VALUES (3)")
    sql(s"ALTER TABLE hdfs.`$from` RENAME TO hdfs.`$to`")
    checkAnswer(sql(s"SELECT id FROM hdfs.`$to`"), Row(3L))
    assert(!cluster.getFileSystem.exists(new Path(from)))
    sql(s"INSERT INTO hdfs.`$to` VALUES (4)")
    checkAnswer(sql(s"SELECT count(*) FROM hdfs.`$to`.batches"), Row(2L))
  }

  test("two processes appending to one shard on HDFS: every acknowledged batch exactly once, upper monotone") {
    val t = ConcurrentWritersRun.run(spark, onHdfs, "racing", processes = 2, appends = 4, compact = false)
    assert(t.failures === 0, t.summary)
    info(t.examples.mkString)
  }

  test("a writer on HDFS halted at each step of a commit, or killed at a random time, loses no acknowledged batch") {
    // `parts` halts inside a local file system's stream (CrashingWriter's HaltingFileSystem); the
    // random kill is what ends an HDFS writer in the middle of a part.
    val steps = CrashingWriter.Steps.filterNot(_ == "parts") :+ "random"
    implicit val ec: ExecutionContext = ExecutionContext.global
    val runs = steps.map(step => Future(CrashRun.run(spark, onHdfs, s"crash_$step", step, seed = 3)))
    val tallies = runs.map(Await.result(_, Duration.Inf))
    tallies.foreach(t => assert(t.failures === 0, t.summary))
    info(tallies.flatMap(_.examples).mkString("; "))
  }

  test("SQL on HDFS: create, insert, DELETE, UPDATE and an earlier as-of read back exactly") {
    sql("CREATE TABLE hdfs.accounts (id BIGINT, bal DOUBLE) TBLPROPERTIES ('order_by' = 'id')")
    sql("INSERT INTO hdfs.accounts VALUES (1, 10.0), (2, 20.0), (3, 30.0)")
    val afterInsert = onHdfs.store(spark).open("accounts").state.upper
    sql("DELETE FROM hdfs.accounts WHERE id = 2")
    sql("UPDATE hdfs.accounts SET bal = bal + 1 WHERE id = 3")
    checkAnswer(sql("SELECT id, bal FROM hdfs.accounts"), Seq(Row(1L, 10.0), Row(3L, 31.0)))
    withSQLConf(PersistConf.AsOf.key -> (afterInsert - 1).toString) {
      checkAnswer(sql("SELECT id, bal FROM hdfs.accounts"), Seq(Row(1L, 10.0), Row(2L, 20.0), Row(3L, 30.0)))
    }
  }
}
