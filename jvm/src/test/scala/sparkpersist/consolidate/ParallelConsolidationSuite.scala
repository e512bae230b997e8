package sparkpersist.consolidate

import scala.util.Random

import org.apache.hadoop.fs.FileUtil
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.types._

import sparkpersist.plan.ReadMode
import sparkpersist.scan.{PartsPartition, PersistScan, ScanReports}
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{RunMeta, ShardHandle}
import sparkpersist.stats.ColumnStats
import sparkpersist.write.{ShardWriter, WriteOptions}
import sparkpersist.{PersistConf, PersistSparkSession}

/**
 * Snapshots with retractions consolidated by 1, 2 and 8 tasks, end to end: random valid
 * histories written as many batches, runs and small parts, read at several as-ofs, must equal
 * the brute-force multiset whatever the task count, order key (a string with truncated bounds, a
 * double with NaN and -0.0, none) and statistics (none at all: hash shares).
 */
class ParallelConsolidationSuite extends PersistSparkSession {

  private val data = StructType(Seq(StructField("k", StringType), StructField("v", IntegerType),
    StructField("d", DoubleType)))
  private val updateSchema = StructType(data.fields ++
    Seq(StructField("t", LongType, nullable = false), StructField("n", LongType, nullable = false)))

  private val keys: IndexedSeq[String] = IndexedSeq(null, "", "a", "é", "zz") ++
    (0 until 25).map(i => ("m" * (i % 5)) + f"$i%02d" + "-long-enough-to-be-truncated")
  private val doubles = IndexedSeq(0.0, -0.0, Double.NaN, 1.5, -2.0, Double.PositiveInfinity, 3.25, 7.0)

  /** A value as it must come back: -0.0 is not 0.0, NaN is itself. */
  private def exact(r: Row): Seq[Any] = r.toSeq.map {
    case x: Double => java.lang.Double.doubleToLongBits(x)
    case x => x
  }

  /**
   * Four batches of 90 updates each; batch b at times 100 b + i / 30, the first only inserts.
   * Retractions never take a row below zero at any time, so every as-of is a valid snapshot; some
   * rows net to zero, some to several copies.
   */
  private def history(seed: Int): Seq[Seq[Row]] = {
    val rnd = new Random(seed)
    val live = scala.collection.mutable.LinkedHashMap.empty[Seq[Any], (Row, Long)]
    (0 until 4).map { b =>
      (0 until 90).map { i =>
        val (row, diff) =
          if (b > 0 && live.nonEmpty && rnd.nextInt(3) == 0) {
            val (row, count) = live.valuesIterator.drop(rnd.nextInt(live.size)).next()
            (row, -(1 + rnd.nextInt(count.toInt)).toLong)
          } else (Row(keys(rnd.nextInt(keys.size)), rnd.nextInt(4), doubles(rnd.nextInt(doubles.size))),
            if (b == 0) 1L else (1 + rnd.nextInt(2)).toLong)
        val count = live.get(exact(row)).fold(0L)(_._2) + diff
        if (count == 0) live.remove(exact(row)) else live(exact(row)) = (row, count)
        Row.fromSeq(row.toSeq ++ Seq(b * 100L + i / 30, diff))
      }
    }
  }

  private def expected(updates: Seq[Row], asOf: Long): Map[Seq[Any], Long] =
    updates.filter(_.getLong(3) <= asOf).groupBy(u => exact(Row.fromSeq(u.toSeq.take(3))))
      .map { case (k, us) => k -> us.map(_.getLong(4)).sum }.filter(_._2 > 0)

  private def multiset(rows: Seq[Row]): Map[Seq[Any], Long] =
    rows.groupBy(exact).map { case (k, v) => k -> v.size.toLong }

  private def write(shard: ShardHandle, batches: Seq[Seq[Row]]): Unit = batches.foreach { batch =>
    val df = spark.createDataFrame(spark.sparkContext.parallelize(batch, 3), updateSchema)
    ShardWriter.write(df, shard, WriteOptions(Some("t"), Some("n"), maxRowsPerPart = Some(12)))
  }

  private def scanOf(frame: DataFrame): PersistScan =
    frame.queryExecution.executedPlan.collectFirst { case b: BatchScanExec => b.scan }.get.asInstanceOf[PersistScan]

  /** The snapshot's rows and the scan that read them, with `tasks` consolidation tasks, as of `asOf`. */
  private def read(table: String, tasks: Int, asOf: Long, where: String = ""): (Seq[Row], PersistScan) = {
    var out: (Seq[Row], PersistScan) = null
    withSQLConf(PersistConf.ConsolidationTasks.key -> tasks.toString, PersistConf.AsOf.key -> asOf.toString) {
      val frame = sql(s"SELECT * FROM persist.$table $where")
      out = (frame.collect().toSeq, scanOf(frame))
    }
    out
  }

  /** The distinct rows (data columns) of each part of `shard`, by part key. */
  private def partRows(shard: ShardHandle): Map[String, Set[Seq[Any]]] = {
    val keyOf = shard.state.parts.map(p => shard.partPath(p).toUri.getPath -> p.key).toMap
    spark.read.schema(data).parquet(keyOf.keys.toSeq: _*).selectExpr("*", "input_file_name() AS file")
      .collect().toSeq.groupBy(r => keyOf(new java.net.URI(r.getString(3)).getPath))
      .map { case (key, rows) => key -> rows.map(r => exact(Row(r.get(0), r.get(1), r.get(2)))).toSet }
  }

  /**
   * Rows whose inserts and retractions sit in parts read by different sets of tasks: only the
   * task of the row's own share sees both, and must consolidate them.
   */
  private def splitAcrossTasks(shard: ShardHandle, scan: PersistScan, updates: Seq[Row]): Int = {
    val tasksOf = scan.consolidation.get.tasks.zipWithIndex
      .flatMap { case (t, i) => t.runs.flatten.map(_.key -> i) }.groupBy(_._1).map { case (k, v) => k -> v.map(_._2).toSet }
    val rowsOf = partRows(shard)
    val retracted = updates.filter(_.getLong(4) < 0).map(u => exact(Row.fromSeq(u.toSeq.take(3)))).toSet
    retracted.count { row =>
      val sets = rowsOf.collect { case (part, rows) if rows.contains(row) => tasksOf.getOrElse(part, Set.empty[Int]) }.toSet
      sets.size > 1
    }
  }

  private def checkEveryTaskCount(name: String, orderBy: Seq[String], seeds: Seq[Int]): Int = {
    var split = 0
    for (seed <- seeds) {
      val shard = store.create(name, ShardSchema.fromStruct(data, orderBy))
      try {
        val batches = history(seed)
        write(shard, batches)
        val all = batches.flatten
        // Tasks merge the runs (cancelInMemoryRows 0), or cancel retracted rows in memory.
        for (asOf <- Seq(150L, 302L); tasks <- Seq(1, 2, 8); inMemory <- Seq("0", "1000000")) {
          val (rows, scan) = withSQLConf(PersistConf.CancelInMemoryRows.key -> inMemory)(read(name, tasks, asOf))
          assert(multiset(rows) === expected(all, asOf), s"$name seed $seed, $tasks tasks, as of $asOf, in memory $inMemory")
          assert(scan.planInputPartitions().forall(p => p.asInstanceOf[PartsPartition].cancelInMemory == (inMemory != "0" &&
            p.asInstanceOf[PartsPartition].share.isDefined)))
          val plan = scan.consolidation.get
          assert(scan.planInputPartitions().length === plan.tasks.size + scan.planInputPartitions().count(
            _.asInstanceOf[PartsPartition].share.isEmpty))
          if (tasks == 1) assert(plan.tasks.map(_.share) === Seq(RowShare.All))
          else assert(plan.tasks.size >= 2 && plan.tasks.size <= tasks, plan.describe)
          if (tasks == 8 && asOf == 302L && inMemory == "0") split += splitAcrossTasks(shard, scan, all)
        }
      } finally store.drop(name)
    }
    split
  }

  test("random histories ordered by a string (bounds truncated to 2 characters) consolidate alike in 1, 2 and 8 tasks") {
    withSQLConf(PersistConf.StringBoundChars.key -> "2") {
      val split = checkEveryTaskCount("by_k", Seq("k"), Seq(1))
      assert(split > 0, "no retracted row had its insert and retraction in parts of different tasks")
    }
  }

  test("random histories ordered by a double (NaN, -0.0, infinity) or by nothing consolidate alike in 1, 2 and 8 tasks") {
    checkEveryTaskCount("by_d", Seq("d"), Seq(4))
    checkEveryTaskCount("unordered", Nil, Seq(6))
  }

  test("parts without statistics consolidate by hash buckets of the rows, every task reading every part") {
    withSQLConf(PersistConf.StatsBudgetBytes.key -> "1") {
      val shard = store.create("blind", ShardSchema.fromStruct(data, Seq("k")))
      try {
        val batches = history(8)
        write(shard, batches)
        assert(shard.state.parts.forall(_.stats.forall(_.columns.values.forall(c => c.lower.isEmpty && c.upper.isEmpty))))
        val (rows, scan) = read("blind", 3, 302L)
        assert(multiset(rows) === expected(batches.flatten, 302L))
        val plan = scan.consolidation.get
        assert(plan.tasks.map(_.share) === (0 until 3).map(RowShare.Hash(_, 3, shard.state.schema.dataSchema)))
        assert(plan.tasks.forall(_.runs.flatten.size == shard.state.partCount))
      } finally store.drop("blind")
    }
  }

  test("a batch of 600 runs with retractions beside it: each consolidation task merges a few chains, not 600 runs") {
    val longs = StructType(Seq(StructField("id", LongType), StructField("v", LongType)))
    val shard = store.create("many_runs", ShardSchema.fromStruct(longs, Seq("id")))
    try {
      // 600 write tasks over disjoint id ranges: 600 runs, 10 rows each.
      ShardWriter.write(spark.range(0, 6000, 1, 600).selectExpr("id", "id % 7 AS v"), shard, WriteOptions())
      val retract = spark.range(0, 6000, 97, 1)
        .selectExpr("id", "id % 7 AS v", s"CAST(${shard.state.upper} AS BIGINT) AS t", "CAST(-1 AS BIGINT) AS n")
      ShardWriter.write(retract, shard, WriteOptions(Some("t"), Some("n")))
      assert(shard.state.batches.head.runs.size === 600)
      for (tasks <- Seq(1, 2, 8)) {
        val (rows, scan) = read("many_runs", tasks, shard.state.upper - 1)
        val retracted = (0L until 6000L by 97).toSet
        assert(rows.map(r => (r.getLong(0), r.getLong(1))).sorted ===
          (0L until 6000L).filterNot(retracted).map(i => (i, i % 7)), s"$tasks tasks")
        // The 600 runs chain into one; the retraction run overlaps them all and is a chain of its own.
        val merged = scan.consolidation.get.tasks.map(_.runs.size)
        assert(merged.nonEmpty && merged.forall(_ <= 2), s"$tasks tasks: runs merged per task $merged")
      }
    } finally store.drop("many_runs")
  }

  test("by default a consolidated read uses at least two tasks on local[2], and pushdown modes agree") {
    val shard = store.create("modes", ShardSchema.fromStruct(data, Seq("k")))
    try {
      val batches = history(9)
      write(shard, batches)
      withSQLConf(PersistConf.ConsolidationTasks.key -> "0") {
        val frame = sql("SELECT * FROM persist.modes")
        val scan = scanOf(frame)
        assert(spark.sparkContext.defaultParallelism === 2)
        assert(scan.mode === ReadMode.ConsolidatedSnapshot)
        assert(scan.planInputPartitions().count(_.asInstanceOf[PartsPartition].share.isDefined) === 2)
        assert(frame.rdd.getNumPartitions >= 2)
        assert(multiset(frame.collect().toSeq) === expected(batches.flatten, shard.state.upper - 1))
      }
      val all = batches.flatten
      val filtered = expected(all.filter(_.getInt(1) >= 2), shard.state.upper - 1)
        .toSeq.flatMap { case (row, n) => Seq.fill(n.toInt)(row) }
      for (tasks <- Seq(2, 8)) withSQLConf(PersistConf.ConsolidationTasks.key -> tasks.toString) {
        val (rows, _) = inEveryMode("SELECT k, v, d FROM persist.modes WHERE v >= 2")
        assert(rows.size === filtered.size, s"$tasks tasks")
      }
    } finally store.drop("modes")
  }

  test("soft mode verifies every row of a part judged skippable once, in every consolidation task count") {
    val honest = store.create("honest", ShardSchema.fromStruct(data, Seq("k")))
    val liar = store.create("liar", ShardSchema.fromStruct(data, Seq("k")))
    try {
      write(honest, history(10))
      val state = honest.state
      val conf = spark.sessionState.newHadoopConf()
      val fs = honest.partPath(state.parts.next()).getFileSystem(conf)
      state.parts.foreach(p => FileUtil.copy(fs, honest.partPath(p), fs, liar.partPath(p), false, conf))
      // One insert part claims v in [1000, 2000]: a filter v < 100 would wrongly skip it.
      val vId = state.schema.column("v").get.id
      val lie = state.parts.find(p => !p.hasRetractions && p.rowCount > 2).get
      def lying(run: RunMeta) = RunMeta(run.parts.map(p =>
        if (p eq lie) p.copy(stats = p.stats.map(s => s.copy(columns = s.columns + (vId -> ColumnStats(0, Some(1000), Some(2000))))))
        else p))
      var upper = 0L
      state.batches.foreach { b =>
        liar.log.compareAndAppend(upper, b.copy(runs = b.runs.map(lying)))
        upper = b.upper
      }
      val query = "SELECT * FROM persist.liar WHERE v < 100"
      val all = sql("SELECT * FROM persist.honest").collect().toSeq
      for (tasks <- Seq(1, 2, 8)) {
        withSQLConf(PersistConf.PushdownMode.key -> "soft", PersistConf.ConsolidationTasks.key -> tasks.toString) {
          assert(multiset(sql(query).collect().toSeq) === multiset(all), s"$tasks tasks")
          assert(ScanReports.last(spark).map(_.softViolations.map(_.sum)) === Seq(Some(lie.rowCount)), s"$tasks tasks")
        }
        withSQLConf(PersistConf.PushdownMode.key -> "soft", PersistConf.SoftFailOnViolation.key -> "true",
            PersistConf.ConsolidationTasks.key -> tasks.toString) {
          val e = intercept[Exception](sql(query).collect())
          assert(e.getMessage.contains("Soft pushdown violation in shard 'liar'"), e.getMessage)
        }
      }
    } finally {
      store.drop("honest")
      store.drop("liar")
    }
  }
}
