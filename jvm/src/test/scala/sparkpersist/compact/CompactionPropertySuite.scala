package sparkpersist.compact

import scala.util.Random

import org.apache.spark.sql.QueryTest

import sparkpersist.{PersistConf, PersistSparkSession}
import sparkpersist.cluster.ClusterColumns
import sparkpersist.schema.ShardSchema
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * The property: random update writes with retractions go to two shards, one of which is
 * compacted every other step with random settings (fan-in, target, window, retention). At every
 * readable as-of of the compacted shard (since and every later update time), each row's net
 * multiplicity equals the one read from the other shard's uncompacted updates; after each
 * compaction, snapshot reads at since and at the latest time and a filtered read in every
 * pushdown mode (soft mode failing on any unsound skip) agree with the model; at the end every
 * part's statistics are exactly those of its rows. The clustered variant declares clustering
 * columns (`v`, `k`): its sealed windows are laid out along a random curve in parts of random size,
 * sometimes all again (`recluster`); its seeds are ones whose histories seal a window (checked).
 */
class CompactionPropertySuite extends QueryTest with PersistSparkSession {
  import testImplicits._

  private val Hour = 3600000L
  private val Day = 24 * Hour
  private val Steps = 9

  /** `(k, v, time, diff)` of a shard's updates as of its upper - 1. */
  private def updatesOf(shard: String): Seq[(Int, String, Long, Long)] =
    sql(s"SELECT k, v, time, diff FROM persist.$shard.updates").as[(Int, String, Long, Long)].collect().toSeq

  /** The net multiplicity of every row as of `t` from raw updates (rows that cancel left out). */
  private def snapshot(updates: Seq[(Int, String, Long, Long)], t: Long): Map[(Int, String), Long] =
    updates.filter(_._3 <= t).groupBy(u => (u._1, u._2)).map { case (row, us) => row -> us.map(_._4).sum }.filter(_._2 != 0)

  private def sqlSnapshot(shard: String, t: Long): Map[(Int, String), Long] =
    withSQLConf(PersistConf.AsOf.key -> t.toString) {
      sql(s"SELECT k, v FROM persist.$shard").as[(Int, String)].collect().toSeq.groupBy(identity).map { case (r, rs) => r -> rs.size.toLong }
    }

  for ((seed, clustered) <- Seq(11, 23).map(_ -> false) ++ Seq(11, 31, 37, 41).map(_ -> true)) test(s"${if (clustered) "clustering " else ""}" +
      s"compaction keeps every readable snapshot (seed $seed)") {
    val rnd = new Random(seed)
    val name = s"p${seed}${if (clustered) "_clustered" else ""}"
    val (compactedShard, plain) = (s"${name}_compacted", s"${name}_plain")
    val schema = ShardSchema.fromStruct(
      new org.apache.spark.sql.types.StructType().add("k", "int").add("v", "string"), orderBy = Seq("k"))
    store.create(compactedShard, if (clustered) ClusterColumns.set(schema, Seq("v", "k"), "test") else schema)
    store.create(plain, schema)
    var clusteredBatches = 0
    var model = Map.empty[(Int, String), Long] // the snapshot as of the newest write
    var time = 0L
    var compactions = 0
    for (step <- 0 until Steps) {
      val compacted = step >= 3 && step % 2 == 1
      if (!compacted) {
        time += Hour + rnd.nextInt(20).toLong * Hour
        val retractions = model.keys.toSeq.filter(_ => rnd.nextInt(3) == 0).map(r => (r._1, r._2, time + rnd.nextInt(3) * Hour, -1L))
        val inserts = (0 until 1 + rnd.nextInt(4)).map(_ =>
          (rnd.nextInt(6), Seq("x", "y", "z")(rnd.nextInt(3)), time + rnd.nextInt(3) * Hour, 1L + rnd.nextInt(2)))
        val batch = retractions ++ inserts
        time = batch.map(_._3).max
        val df = batch.toDF("k", "v", "t", "d").repartition(1 + rnd.nextInt(2))
        Seq(compactedShard, plain).foreach(s => ShardWriter.write(df, store.open(s), WriteOptions(timeCol = Some("t"), diffCol = Some("d"))))
        batch.foreach { case (k, v, _, d) => model = model.updated((k, v), model.getOrElse((k, v), 0L) + d) }
        model = model.filter(_._2 != 0)
      } else {
        compactions += 1
        val upper = store.open(compactedShard).state.upper
        val options = CompactOptions(
          fanIn = Some(2 + rnd.nextInt(2)),
          targetBytes = Some(if (rnd.nextBoolean()) 3000L else 1L << 30),
          windowMs = Some(Seq(Day / 2, Day, 10 * Day)(rnd.nextInt(3))),
          retentionMs = if (rnd.nextBoolean()) None else Some(rnd.nextLong(math.max(1L, upper))))
        withSQLConf(PersistConf.ClusterPartBytes.key -> Seq("1", "300", "100000")(rnd.nextInt(3)),
          PersistConf.ClusterCurve.key -> Seq("hilbert", "zorder", "grid")(rnd.nextInt(3))) {
          Lifecycle.compact(spark, compactedShard, options.copy(recluster = rnd.nextInt(3) == 0))
        }
        clusteredBatches += store.open(compactedShard).state.batches.count(_.clusteredBy.nonEmpty)
      }
      val c = store.open(compactedShard).state
      val expected = updatesOf(plain)
      val actual = updatesOf(compactedShard)
      val readable = (c.since +: expected.map(_._3).filter(_ >= c.since)).distinct
      readable.foreach(t => assert(snapshot(actual, t) === snapshot(expected, t), s"step $step, as of $t"))
      assert(snapshot(expected, c.upper - 1) === model.filter(_._2 > 0), s"step $step")
      if (compacted) {
        Seq(c.since, c.upper - 1).distinct.foreach(t =>
          assert(sqlSnapshot(compactedShard, t) === snapshot(expected, t), s"step $step, SQL as of $t"))
        val k = rnd.nextInt(6)
        val (filtered, _) = inEveryMode(s"SELECT k, v FROM persist.$compactedShard WHERE k >= $k OR v = 'z'")
        val wanted = model.toSeq.filter { case ((rk, rv), _) => rk >= k || rv == "z" }
          .flatMap { case ((rk, rv), n) => Seq.fill(n.toInt)(s"[$rk,$rv]") }.sorted
        assert(filtered === wanted, s"step $step")
      }
    }
    assert(compactions === 3)
    assert(clustered === (clusteredBatches > 0), "the clustered variant clusters some window")

    // Every part's stats are exact: row count, times, retractions and each column's bounds and nulls.
    val shard = store.open(compactedShard)
    shard.state.parts.foreach { p =>
      val rows = spark.read.parquet(shard.partPath(p).toString)
      val times = if (rows.columns.contains("time")) rows.select("time", "diff").as[(Long, Long)].collect().toSeq
        else Seq.fill(rows.count().toInt)((p.minTime, 1L))
      assert((p.rowCount, p.minTime, p.maxTime, p.hasRetractions) ===
        (times.size.toLong, times.map(_._1).min, times.map(_._1).max, times.exists(_._2 != 1L)), p.key)
      val data = rows.select("k", "v").as[(Int, String)].collect().toSeq
      val stats = p.stats.get.columns
      assert((stats(1).nullCount, stats(1).lower, stats(1).upper) === (0L, Some(data.map(_._1).min), Some(data.map(_._1).max)), p.key)
      assert((stats(2).lower.map(_.toString), stats(2).upper.map(_.toString)) === (Some(data.map(_._2).min), Some(data.map(_._2).max)), p.key)
    }
  }
}
