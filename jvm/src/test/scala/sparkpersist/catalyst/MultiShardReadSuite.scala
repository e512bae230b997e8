package sparkpersist.catalyst

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.spark.sql.{QueryTest, Row}
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}

import sparkpersist.{PersistConf, PersistSparkSession}
import sparkpersist.schema.ShardSchema
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Queries over several shards read every committed row (issue 30): each shard is read at its own
 * latest complete time, whatever the others' uppers, and every answer equals plain Spark's over the
 * same rows (temp views of each shard's snapshot, kept by the test as it writes). Random histories of
 * 2-4 shards, some stamped with commit times, some with update times from a `time_col` far in the
 * past, with retractions, written in random order, some shards idle after their first batches.
 */
class MultiShardReadSuite extends QueryTest with PersistSparkSession {

  private val schema = StructType(Seq(StructField("k", LongType), StructField("v", StringType)))

  test("the issue's snippet: a fact shard joined to an older dimension shard counts every fact row") {
    writeDf(spark.range(100).selectExpr("id AS k", "concat('n', id) AS name"), "dim", Nil)
    writeDf(spark.range(20000).selectExpr("id % 100 AS k", "id AS v"), "fact", Seq("k"))
    val (rows, reports) = inEveryMode("SELECT count(*) FROM persist.fact f JOIN persist.dim d ON f.k = d.k")
    assert(rows === Seq("[20000]"))
    val upper = Map("dim" -> store.open("dim").state.upper, "fact" -> store.open("fact").state.upper)
    assert(upper("dim") < upper("fact"))
    reports.values.foreach { scans =>
      assert(scans.map(s => s.shard -> s.asOf).toMap === upper.map { case (n, u) => n -> Some(u - 1) })
    }
  }

  test("mz_now() is one value per query: the latest as-of among its shards, for pruning and for rows") {
    val dayMs = 86400000L
    writeDf(spark.range(10).selectExpr("id AS k", "CAST(id * 86400 AS TIMESTAMP) AS ts", "id * 86400000 AS t"), "old_events",
      Nil, timeCol = Some("t"))
    writeDf(spark.range(3).selectExpr("id AS k"), "fresh", Nil)
    val now = store.open("fresh").state.upper - 1
    // old_events reads all of its rows (its own latest); mz_now() is fresh's latest time, years later,
    // in the outer query and in its subqueries alike.
    assert(inEveryMode("SELECT count(*) FROM persist.old_events o JOIN persist.fresh f ON o.k = f.k")._1 === Seq("[3]"))
    assert(inEveryMode("SELECT (SELECT count(*) FROM persist.fresh) AS n, count(*) AS recent FROM persist.old_events " +
      "WHERE ts >= mz_now() - INTERVAL 5 DAYS")._1 === Seq("[3,0]"))
    assert(inEveryMode("SELECT count(*) FROM persist.fresh WHERE k IN (SELECT k FROM persist.old_events " +
      "WHERE ts >= mz_now() - INTERVAL 5 DAYS)")._1 === Seq("[0]"))
    assert(inEveryMode("SELECT count(*) FROM persist.old_events WHERE ts >= mz_now() - INTERVAL 5 DAYS")._1 === Seq("[6]"),
      "read alone, mz_now() is its own latest time (day 9): days 4-9")
    val joined = sql("SELECT unix_millis(mz_now()) FROM persist.fresh, persist.old_events LIMIT 1").collect().head.getLong(0)
    assert(joined === now && now > 9 * dayMs)
  }

  test("read.consistency=consistent reads every shard at the common time and warns naming the shard behind") {
    writeDf(spark.range(5).selectExpr("id AS k"), "lagging", Nil)
    writeDf(spark.range(7).selectExpr("id AS k"), "ahead", Nil)
    writeDf(spark.range(7, 9).selectExpr("id AS k"), "ahead", Nil)
    val lagging = store.open("lagging").state.upper
    withSQLConf(PersistConf.ReadConsistency.key -> "consistent") {
      val appender = new LogAppender("consistent as-of")
      withLogAppender(appender, loggerNames = Seq(QueryAsOf.getClass.getName.stripSuffix("$"))) {
        checkAnswer(sql("SELECT (SELECT count(*) FROM persist.lagging), (SELECT count(*) FROM persist.ahead)"),
          Seq(Row(5L, 0L)))
        val q = sql("SELECT count(*) FROM persist.lagging l JOIN persist.ahead a ON l.k = a.k")
        checkAnswer(q, Seq(Row(0L)))
      }
      val warnings = appender.loggingEvents.map(_.getMessage.getFormattedMessage)
      assert(warnings.exists(w => w.contains(s"Shard 'lagging' (upper $lagging)") && w.contains("'ahead'")), warnings)
    }
    checkAnswer(sql("SELECT count(*) FROM persist.lagging l JOIN persist.ahead a ON l.k = a.k"), Seq(Row(5L)))
  }

  test("a scan reports the bytes and rows it reads: a small shard is broadcast, row counts exact where the state knows") {
    writeDf(spark.range(100).selectExpr("id AS k", "concat('n', id) AS name"), "small_dim", Nil)
    writeDf(spark.range(5000).selectExpr("id % 100 AS k", "id AS v"), "big_fact", Seq("k"), maxRowsPerPart = Some(500))
    withSQLConf("spark.sql.adaptive.enabled" -> "false") {
      val joined = sql("SELECT count(*) FROM persist.big_fact f JOIN persist.small_dim d ON f.k = d.k")
      val joins = joined.queryExecution.executedPlan.collect {
        case j: org.apache.spark.sql.execution.joins.BroadcastHashJoinExec => j
      }
      assert(joins.size === 1, joined.queryExecution.executedPlan)
      checkAnswer(joined, Row(5000L))
    }
    // Spark 4.3 plans with row counts and column stats of a scan only under CBO or plan stats.
    def stats(q: String) = withSQLConf("spark.sql.cbo.planStats.enabled" -> "true") {
      sql(q).queryExecution.optimizedPlan.collectLeaves().head.stats
    }
    val dim = stats("SELECT * FROM persist.small_dim")
    val bytes = store.open("small_dim").state.parts.map(_.bytes).sum
    assert(dim.sizeInBytes === BigInt(bytes) && dim.rowCount === Some(BigInt(100)))
    assert(stats("SELECT k FROM persist.small_dim").sizeInBytes < BigInt(bytes), "a projection reads a share of the bytes")
    val k = dim.attributeStats.collectFirst { case (a, c) if a.name == "k" => c }.getOrElse(fail(s"no stats of k: $dim"))
    assert((k.nullCount, k.min, k.max) === (Some(BigInt(0)), Some(0L), Some(99L)), k)
    val name = dim.attributeStats.collectFirst { case (a, c) if a.name == "name" => c }.get
    assert((name.nullCount, name.min, name.max) === (Some(BigInt(0)), None, None), "string bounds may be truncated")
    val pruned = stats("SELECT * FROM persist.big_fact WHERE k = 7")
    val fact = store.open("big_fact").state
    assert(pruned.rowCount.exists(_ < BigInt(5000)) && pruned.sizeInBytes < BigInt(fact.parts.map(_.bytes).sum),
      s"pruned parts are not counted: $pruned")
    val df = spark.createDataFrame(Seq(Row(1L, "n1", -1L)).asJava,
      StructType(Seq(StructField("k", LongType), StructField("name", StringType), StructField("d", LongType))))
    ShardWriter.write(df, store.open("small_dim"), WriteOptions(diffCol = Some("d")))
    assert(stats("SELECT * FROM persist.small_dim").rowCount === None, "with retractions, the row count is not known")
  }

  test("runtime filters: a join's dimension keys skip the fact parts whose bounds admit none of them") {
    writeDf(spark.range(100).selectExpr("id AS k", "concat('n', id) AS name"), "rt_dim", Nil)
    writeDf(spark.range(10000).repartition(2).selectExpr("id % 100 AS k", "id AS v"), "rt_fact", Seq("k"),
      maxRowsPerPart = Some(500))
    val fact = store.open("rt_fact").state
    assert(fact.partCount === 20)
    spark.range(100).selectExpr("id AS k", "concat('n', id) AS name").createOrReplaceTempView("rt_dim_plain")
    spark.range(10000).selectExpr("id % 100 AS k", "id AS v").createOrReplaceTempView("rt_fact_plain")
    val q = "SELECT count(*), sum(v) FROM {f} f JOIN {d} d ON f.k = d.k WHERE d.name IN ('n5', 'n64')"
    val expected = sql(q.replace("{f}", "rt_fact_plain").replace("{d}", "rt_dim_plain")).collect().map(_.toString).toSeq
    // Parts holding k = 5 or k = 64: each run is sorted by k in parts of 500 rows (5 keys each).
    val k = fact.schema.column("k").get.id
    val holding = fact.parts.count(p => p.stats.exists(_.columns.get(k).exists(c => Seq(5L, 64L).exists(v =>
      c.lower.forall(_.asInstanceOf[Long] <= v) && c.upper.forall(v <= _.asInstanceOf[Long])))))
    assert(holding >= 2 && holding <= 6, s"$holding parts hold a key")
    val (rows, reports) = inEveryMode(q.replace("{f}", "persist.rt_fact").replace("{d}", "persist.rt_dim"))
    assert(rows === expected)
    val onFact = reports("on").find(_.shard == "rt_fact").get.metrics
    assert((onFact.partsKept, onFact.partsRuntimePruned) === (holding, 20 - holding), onFact)
    val softFact = reports("soft").find(_.shard == "rt_fact").get.metrics
    assert((softFact.partsKept, softFact.partsRuntimePruned) === (20, 20 - holding), softFact)
    assert(reports("off").find(_.shard == "rt_fact").get.metrics.partsRuntimePruned === 0)
    val plan = sql(q.replace("{f}", "persist.rt_fact").replace("{d}", "persist.rt_dim")).queryExecution.executedPlan.toString
    assert(plan.contains("dynamicpruning"), plan)
  }

  test("random histories over 2-4 shards: joins, unions, IN/EXISTS subqueries and aggregates equal plain Spark's") {
    val histories = sys.props.get("sparkpersist.multishard.histories").map(_.toInt).getOrElse(8)
    (0 until histories).foreach(h => history(new Random(3000L + h), s"h$h"))
  }

  /** One random history: shards written in random order, then every query compared with plain Spark's. */
  private def history(rand: Random, prefix: String): Unit = {
    val count = 2 + rand.nextInt(3)
    val shards = (0 until count).map(i => Shard(s"${prefix}_s$i", timeCol = rand.nextBoolean(), idleAfter = 1 + rand.nextInt(4)))
    shards.foreach(s => store.create(s.name, ShardSchema.fromStruct(schema, if (rand.nextBoolean()) Seq("k") else Nil)))
    val writes = rand.shuffle(shards.flatMap(s => Seq.fill(1 + rand.nextInt(4))(s)))
    writes.foreach(s => if (s.batches < s.idleAfter) s.writeBatch(rand))
    shards.foreach(s => spark.createDataFrame(s.snapshot.asJava, schema).createOrReplaceTempView(s"${s.name}_v"))
    val pairs = for (a <- shards; b <- shards if a ne b) yield (a.name, b.name)
    val (a, b) = pairs(rand.nextInt(pairs.size))
    val queries = Seq(
      "SELECT x.k, x.v, y.v FROM {a} x JOIN {b} y ON x.k = y.k",
      "SELECT x.k, count(*) FROM {a} x LEFT JOIN {b} y ON x.k = y.k AND y.v < 'v5' GROUP BY x.k",
      "SELECT k, v FROM {a} UNION ALL SELECT k, v FROM {b}",
      "SELECT k FROM {a} WHERE k < 12 INTERSECT ALL SELECT k FROM {b}",
      "SELECT * FROM {a} WHERE k IN (SELECT k FROM {b} WHERE v >= 'v3')",
      "SELECT * FROM {a} x WHERE EXISTS (SELECT 1 FROM {b} y WHERE y.k = x.k AND y.v <> x.v) AND x.k BETWEEN 2 AND 9",
      "SELECT k % 3, count(*), min(v), max(v) FROM (SELECT * FROM {a} UNION ALL SELECT * FROM {b}) GROUP BY k % 3")
    queries.foreach { q =>
      val expected = sql(q.replace("{a}", s"${a}_v").replace("{b}", s"${b}_v")).collect().map(_.toString).toSeq.sorted
      val described = s"$q with {a} = $a, {b} = $b (${shards.map(_.describe).mkString("; ")})"
      val (got, _) = withClue(described)(inEveryMode(q.replace("{a}", s"persist.$a").replace("{b}", s"persist.$b")))
      assert(got === expected, described)
    }
  }

  /** A shard of the random history and what the test wrote to it. */
  private final case class Shard(name: String, timeCol: Boolean, idleAfter: Int) {
    var batches = 0
    private var nextTime = 1600000000000L // 2020-09: a time_col shard's updates lie years in the past
    private val rows = scala.collection.mutable.ArrayBuffer.empty[(Long, String)]

    def describe: String = s"$name ${if (timeCol) "time_col" else "commit time"}, $batches batches, ${rows.size} rows"

    /** The snapshot at its latest time: every row inserted and not retracted, with multiplicity. */
    def snapshot: Seq[Row] = rows.toSeq.map { case (k, v) => Row(k, v) }

    def writeBatch(rand: Random): Unit = {
      val inserts = Seq.fill(1 + rand.nextInt(12))((rand.nextInt(15).toLong, s"v${rand.nextInt(8)}"))
      val retracted = if (rows.nonEmpty && rand.nextInt(3) == 0) rand.shuffle(rows.toSeq).take(1 + rand.nextInt(3)) else Nil
      val updates = inserts.map(r => (r._1, r._2, 1L)) ++ retracted.map(r => (r._1, r._2, -1L))
      nextTime += 1 + rand.nextInt(1000)
      val df = spark.createDataFrame(updates.map { case (k, v, d) => Row(k, v, d, nextTime) }.asJava,
        StructType(schema.fields ++ Seq(StructField("d", LongType), StructField("t", LongType))))
      val options = WriteOptions(timeCol = if (timeCol) Some("t") else None, diffCol = Some("d"))
      ShardWriter.write(if (timeCol) df else df.drop("t"), store.open(name), options)
      rows ++= inserts
      retracted.foreach(r => rows.remove(rows.indexOf(r)))
      batches += 1
    }
  }

  private def writeDf(df: org.apache.spark.sql.DataFrame, shard: String, orderBy: Seq[String],
      timeCol: Option[String] = None, maxRowsPerPart: Option[Long] = None): Unit = {
    if (!store.exists(shard)) {
      val fields = df.schema.fields.filterNot(f => timeCol.contains(f.name))
      store.create(shard, ShardSchema.fromStruct(StructType(fields.map(_.copy(nullable = true))), orderBy))
    }
    ShardWriter.write(df, store.open(shard), WriteOptions(timeCol = timeCol, maxRowsPerPart = maxRowsPerPart))
  }
}
