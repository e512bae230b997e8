package sparkpersist.cluster

import org.apache.spark.SparkConf
import org.apache.spark.sql.{DataFrame, QueryTest, Row}

import sparkpersist.{PersistConf, PersistSparkSession}
import sparkpersist.compact.{CompactOptions, Lifecycle}
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Clustering today's window on request, as a newcomer tries it: `CREATE TABLE … CLUSTER BY`,
 * a few INSERTs, `CALL persist.system.compact(shard => …, cluster => true)`. The INSERTs are
 * stamped with their commit time, so today's window is open. Plain Spark over a plain Parquet copy
 * of the same rows (pushdown off) is the oracle.
 */
class OpenWindowClusteringSuite extends QueryTest with PersistSparkSession {

  override protected def sparkConf: SparkConf = super.sparkConf.set("spark.plugins", classOf[HeldCompaction].getName)

  private val Day = 86400000L
  private val Rows = 20000

  /** INSERT `a`: ids [a * Rows, (a + 1) * Rows) of 20 countries `c0`..`c19`. */
  private def insert(table: String, a: Int): Unit =
    sql(s"INSERT INTO persist.$table SELECT id, concat('c', CAST(id % 20 AS STRING)), id * 0.5 " +
      s"FROM range(${a.toLong * Rows}, ${(a + 1L) * Rows}, 1, 2)")

  private def create(table: String, inserts: Int): Unit = {
    // Commit times within a minute of a UTC midnight would split the inserts over two windows.
    val left = Day - System.currentTimeMillis() % Day
    if (left < 60000) Thread.sleep(left + 1000)
    sql(s"CREATE TABLE persist.$table (id BIGINT, country STRING, amount DOUBLE) CLUSTER BY (country)")
    (0 until inserts).foreach(insert(table, _))
  }

  /** The rows of `where` equal plain Spark's over a plain Parquet copy of `rows`; returns the parts read. */
  private def partsRead(table: String, rows: DataFrame, where: String): Long = {
    val expected = plainParquet(rows, where)
    val (got, reports) = inEveryMode(s"SELECT id, country, amount FROM persist.$table WHERE $where")
    assert(got === expected, where)
    reports("on").map(_.metrics.partsKept).sum
  }

  private def inserted(n: Int): DataFrame =
    spark.range(0, n.toLong * Rows).selectExpr("id", "concat('c', CAST(id % 20 AS STRING)) AS country", "id * 0.5 AS amount")

  /** The result's `windows`, as (action, reason, parts before, parts after). */
  private def windows(result: Row): Seq[(String, String, Int, Int)] =
    result.getSeq[Row](result.fieldIndex("windows")).map(w =>
      (w.getAs[String]("action"), w.getAs[String]("reason"), w.getAs[Int]("parts_before"), w.getAs[Int]("parts_after")))

  private val Later = "batches appended later are laid out when it seals"

  test("the newcomer transcript: cluster => true lays today's open window out, says so, and country = 'c7' " +
    "reads at most a fifth of the parts; a later INSERT waits until the window seals") {
    create("cl", 4)
    val shard = store.open("cl")
    val before = shard.state
    val today = before.batches.head.parts.next().minTime / Day * Day
    assert(before.batches.map(_.parts.next().minTime / Day * Day).distinct === Seq(today))
    // Without cluster => true the open window keeps its size-tiered merges: 4 batches wait for 8.
    val untouched = sql("CALL persist.system.compact(shard => 'cl')").head()
    assert((untouched.getAs[Int]("rounds"), untouched.getAs[Int]("parts_after")) === (0, before.partCount))
    assert(windows(untouched) === Seq(("none", "open: laid out along (country) once it seals, or now with cluster => true",
      before.partCount, before.partCount)))
    val window = untouched.getSeq[Row](untouched.fieldIndex("windows")).head
    assert((window.getAs[Long]("start"), window.getAs[Long]("end")) === (today, today + Day))

    val partBytes = before.batches.map(_.bytes).sum / 20
    val result = withSQLConf(PersistConf.ClusterPartBytes.key -> partBytes.toString) {
      sql("CALL persist.system.compact(shard => 'cl', cluster => true)").head()
    }
    val clustered = shard.state
    val Seq(batch) = clustered.batches
    assert((batch.clusteredBy, batch.appends, batch.runs.size) === (clustered.schema.clusteredIds, 4, batch.partCount))
    assert(windows(result) === Seq(("clustered", s"open: laid out along (country) on request (cluster => true); $Later",
      before.partCount, batch.partCount)))
    assert(batch.partCount >= 15, batch.partCount)
    // The parts read are exactly those holding c7 rows, at most a fifth of them.
    val holding = clustered.parts.count(p => spark.read.parquet(shard.partPath(p).toString).where("country = 'c7'").count() > 0)
    assert(partsRead("cl", inserted(4), "country = 'c7'") === holding)
    assert(holding * 5 <= batch.partCount, (holding, batch.partCount))
    info(s"country = 'c7': ${before.partCount} of ${before.partCount} parts before, $holding of ${batch.partCount} after")

    // Automatic compaction leaves the open window's clustered batch alone, however it tiers the later ones.
    withSQLConf(PersistConf.AutoCompact.key -> "true", PersistConf.CompactFanIn.key -> "2") {
      insert("cl", 4)
      insert("cl", 5)
    }
    val appended = shard.state
    assert(appended.batches.head === batch)
    assert(appended.batches.tail.forall(_.clusteredBy.isEmpty) && appended.batches.tail.map(_.appends).sum === 2)
    // A write at the window's end seals it: the next compaction lays the later batches out, not the first again.
    ShardWriter.write(spark.range(-1, 0).selectExpr("id", "'c7' AS country", "CAST(0 AS DOUBLE) AS amount", s"${today + Day} AS t"),
      shard, WriteOptions(timeCol = Some("t")))
    val sealedResult = withSQLConf(PersistConf.ClusterPartBytes.key -> partBytes.toString) {
      sql("CALL persist.system.compact(shard => 'cl')").head()
    }
    val Seq(first, second, tomorrow) = shard.state.batches
    assert(first === batch && second.clusteredBy === batch.clusteredBy && second.appends === 2 && tomorrow.clusteredBy.isEmpty)
    assert(windows(sealedResult) === Seq(
      ("clustered", "sealed: laid out along (country)", appended.partCount, batch.partCount + second.partCount),
      ("none", "open: laid out along (country) once it seals, or now with cluster => true", 1, 1)))
    val all = inserted(6).union(spark.range(-1, 0).selectExpr("id", "'c7' AS country", "CAST(0 AS DOUBLE) AS amount"))
    assert(partsRead("cl", all, "country = 'c7'") <= (first.partCount + second.partCount) / 5 + 1)
  }

  test("compact without cluster => true keeps today's behaviour on the open window: size-tiered, not laid out") {
    create("tiered", 4)
    val result = sql("CALL persist.system.compact(shard => 'tiered', fan_in => 4)").head()
    val Seq(batch) = store.open("tiered").state.batches
    assert(batch.clusteredBy.isEmpty && batch.runs.size === 1 && batch.appends === 4)
    assert(windows(result).map(w => (w._1, w._2)) ===
      Seq(("merged", "open: laid out along (country) once it seals, or now with cluster => true")))
    assert(partsRead("tiered", inserted(4), "country = 'c7'") === batch.partCount)
  }

  test("an INSERT committed while cluster => true lays the open window out is kept, once, and left for later") {
    create("race", 4)
    val shard = store.open("race")
    val before = shard.state
    val result = HeldCompaction.during(Lifecycle.compact(spark, "race", CompactOptions(recluster = true))) {
      insert("race", 4)
      assert(shard.state.batches.size === 5)
    }
    assert((result.groupsMerged, result.groupsLost) === (1, 0))
    val Seq(clustered, appended) = shard.state.batches
    assert(clustered.clusteredBy === shard.state.schema.clusteredIds && clustered.appends === 4)
    assert(appended.clusteredBy.isEmpty && appended.appends === 1 && appended.lower === clustered.upper)
    assert(before.batches.map(_.lower).head === clustered.lower && before.batches.last.upper === clustered.upper)
    assert(result.windows.map(w => (w.action, w.partsBefore, w.partsAfter)) ===
      Seq(("clustered", before.partCount, clustered.partCount + appended.partCount)))
    assert(sql("SELECT count(*), count(DISTINCT id) FROM persist.race").head() === Row(5L * Rows, 5L * Rows))
    partsRead("race", inserted(5), "country = 'c7' OR id % 1000 = 7")
  }
}
