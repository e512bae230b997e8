package sparkpersist.cluster

import org.apache.spark.sql.{DataFrame, QueryTest}
import org.apache.spark.sql.functions.{input_file_name, max, min}

import sparkpersist.compact.{CompactOptions, CompactionResult, Lifecycle}
import sparkpersist.write.{ShardWriter, WriteOptions}
import sparkpersist.{PersistConf, PersistSparkSession}

/**
 * A sealed window larger than `compact.targetBytes` is laid out as one: one sample and one layout
 * over the whole window, cut into parts that do not overlap, as narrow as the same window's parts
 * when it fits one group. Plain Spark over the same rows is the oracle of every answer.
 */
class WindowLayoutSuite extends QueryTest with PersistSparkSession {

  private val Day = 86400000L
  private val Appends = 8

  /** Append `a` of day `d`: 500 events of 8 countries and 20,000 users. */
  private def events(d: Int, a: Int): DataFrame =
    ClusterEvents(spark, d * 10000L + a * 500L, 500, 20000, d * Day + (a + 1) * 3600000L).drop("amount")

  /** Day 0 in 8 appends, and one append of day 1, which seals day 0. */
  private def load(table: String, layout: String): Unit = {
    sql(s"CREATE TABLE persist.$table (id BIGINT, country STRING, user_id INT) CLUSTER BY (country, user_id) " +
      "TBLPROPERTIES ('order_by' = 'id')")
    val shard = store.open(table)
    for (a <- 0 until Appends) ShardWriter.write(events(0, a), shard, WriteOptions(timeCol = Some("ingest")))
    ShardWriter.write(events(1, 0), shard, WriteOptions(timeCol = Some("ingest")))
  }

  private lazy val prepared: Unit =
    ((0 until Appends).map(events(0, _)) :+ events(1, 0)).reduce(_ union _).drop("ingest").createOrReplaceTempView("oracle")

  /** The rows of `where` equal plain Spark's in every pushdown mode; returns the parts kept of day 0. */
  private def partsRead(table: String, where: String): Long = {
    val (rows, reports) = inEveryMode(s"SELECT id, country, user_id FROM persist.$table WHERE $where")
    assert(rows === sql(s"SELECT id, country, user_id FROM oracle WHERE $where").collect().map(_.toString).toSeq.sorted)
    reports("on").map(_.metrics.partsKept).sum - 1 // day 1's one part is never pruned by these filters
  }

  private def dayBytes(table: String): Long = store.open(table).state.batches.take(Appends).map(_.bytes).sum

  /** Compacts `table` laid out by `layout` with `targetBytes`, into 16 parts of day 0 (each 1/15.5 of its bytes). */
  private def compact(table: String, layout: String, targetBytes: Long): CompactionResult =
    withSQLConf(PersistConf.ClusterPartBytes.key -> (dayBytes(table) * 2 / 31).toString,
      PersistConf.ClusterCurve.key -> layout) {
      Lifecycle.compact(spark, table, CompactOptions(targetBytes = Some(targetBytes)))
    }

  /** Each part of day 0: its (min, max) of country and of user_id. */
  private def boxes(table: String): Seq[((String, String), (Int, Int))] = {
    val shard = store.open(table)
    val paths = shard.state.batches.head.parts.map(p => shard.partPath(p).toString).toSeq
    spark.read.parquet(paths: _*).groupBy(input_file_name())
      .agg(min("country"), max("country"), min("user_id"), max("user_id")).collect().toSeq
      .map(r => ((r.getString(1), r.getString(2)), (r.getInt(3), r.getInt(4))))
  }

  private val filters = Seq("country = 'DE'", "user_id = 11046", "user_id BETWEEN 3000 AND 3100",
    "country = 'JP' AND user_id < 10000")

  for ((layout, expected) <- Seq("grid" -> Seq(4, 2, 4, 2), "hilbert" -> Seq(6, 1, 5, 3))) {
    test(s"$layout: a window of 4 targetBytes is one clustered batch, its parts as narrow as one group's") {
      prepared
      load(s"${layout}_window", layout)
      load(s"${layout}_group", layout)
      val target = dayBytes(s"${layout}_window") / 4
      val window = compact(s"${layout}_window", layout, target)
      val group = compact(s"${layout}_group", layout, 1L << 30)
      Seq(window, group).foreach(r => assert((r.groupsMerged, r.batchesBefore, r.batchesAfter) === (1, Appends + 1, 2)))
      val day = store.open(s"${layout}_window").state.batches.head
      assert(day.clusteredBy.nonEmpty && day.bytes > 3 * target && day.partCount === 16)
      assert(store.open(s"${layout}_group").state.batches.head.partCount === 16)
      val read = filters.map(f => (partsRead(s"${layout}_window", f), partsRead(s"${layout}_group", f)))
      assert(read === expected.map(n => (n, n)), filters)
      if (layout == "grid") {
        // Slabs of country, each cut by user_id: every two parts are apart on one column or the other.
        val parts = boxes(s"${layout}_window")
        assert(parts.size === 16)
        for (Seq(a, b) <- parts.combinations(2)) {
          val apartCountry = a._1._2 < b._1._1 || b._1._2 < a._1._1
          val apartUser = a._2._2 < b._2._1 || b._2._2 < a._2._1
          assert(apartCountry || apartUser, s"$a overlaps $b")
        }
      }
    }
  }
}
