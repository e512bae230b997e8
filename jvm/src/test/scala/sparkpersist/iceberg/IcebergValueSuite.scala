package sparkpersist.iceberg

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{QueryTest, Row}

import sparkpersist.PersistSparkSession
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Versions that retract rows by value (an overwrite, an update write, a compaction over retractions)
 * shown in the Iceberg metadata through position deletes found by matching values ([[ValueDeletes]]):
 * every version read back through Iceberg's Java API ([[IcebergReading]]) equals plain Spark over a
 * plain Parquet copy of a model's rows, signed zeros, NaN and nulls told apart; duplicates keep the
 * copies they should; the deletes of a set of parts are computed once; and a version whose rows have
 * no such form says why.
 */
class IcebergValueSuite extends QueryTest with PersistSparkSession with IcebergReading {
  import testImplicits._

  private type Rows = Seq[(Long, String, Option[Double])]

  private def location(table: String): String = store.open(table).dir.toString
  private def version(table: String): Long = store.open(table).state.seqNo

  private def sync(table: String): org.apache.spark.sql.Row = sql(s"CALL persist.system.iceberg('$table')").collect().head

  /** The rows the snapshot of `shardVersion` holds, as text (so -0.0 is not 0.0), sorted. */
  private def shown(table: String, shardVersion: Long): Seq[String] = {
    val t = icebergTable(location(table))
    icebergRows(t, snapshotOf(t, shardVersion))._1.map(_.toString).sorted
  }

  /** The delete files the snapshot of `shardVersion` reads. */
  private def deleteFiles(table: String, shardVersion: Long): Set[String] = {
    val t = icebergTable(location(table))
    val tasks = t.newScan().useSnapshot(snapshotOf(t, shardVersion).snapshotId()).planFiles()
    try tasks.asScala.flatMap(_.deletes().asScala.map(_.location())).toSet finally tasks.close()
  }

  private def value(id: Long): Option[Double] = id % 7 match {
    case 1 => Some(-0.0)
    case 2 => Some(0.0)
    case 3 => Some(Double.NaN)
    case 4 => None
    case _ => Some(id * 1.5)
  }

  private def rows(from: Long, until: Long, prefix: String): Rows = (from until until).map(id => (id, s"$prefix$id", value(id)))

  /** The SQL of `rows(from, until, prefix)`. */
  private def select(from: Long, until: Long, prefix: String): String =
    s"SELECT id, concat('$prefix', id) AS name, CASE id % 7 WHEN 1 THEN CAST('-0.0' AS DOUBLE) WHEN 2 THEN 0.0D " +
      s"WHEN 3 THEN CAST('NaN' AS DOUBLE) WHEN 4 THEN NULL ELSE id * 1.5D END AS v FROM range($from, $until, 1, 2)"

  test("INSERT OVERWRITE, UPDATE, DELETE and MERGE, then compaction: every version shown, rows equal plain Parquet") {
    sql("CREATE TABLE persist.statements (id BIGINT, name STRING, v DOUBLE) TBLPROPERTIES ('sparkpersist.iceberg' = 'true')")
    var model: Rows = Nil
    var expected = Map.empty[Long, Rows]
    def step(statement: String)(change: Rows => Rows): Unit = {
      sql(statement)
      model = change(model)
      expected += version("statements") -> model
      val status = sync("statements")
      assert((status.getLong(0), status.isNullAt(6)) === (version("statements"), true), s"$statement: ${status.getString(6)}")
      assertShown(version("statements"), statement)
    }
    def assertShown(v: Long, after: String): Unit =
      assert(shown("statements", v) === plainParquet(expected(v).toDF("id", "name", "v"), "true"), s"version $v after $after")
    step(s"INSERT INTO persist.statements ${select(0, 30, "a")}")(_ => rows(0, 30, "a"))
    step(s"INSERT INTO persist.statements ${select(20, 40, "a")}")(_ ++ rows(20, 40, "a")) // 20..29 twice
    step(s"INSERT OVERWRITE persist.statements ${select(10, 50, "a")}")(_ => rows(10, 50, "a"))
    step("UPDATE persist.statements SET v = v + 1 WHERE id % 3 = 0")(_.map { case (id, n, v) =>
      (id, n, if (id % 3 == 0) v.map(_ + 1) else v) })
    step("DELETE FROM persist.statements WHERE id % 4 = 1")(_.filterNot(_._1 % 4 == 1))
    step(s"MERGE INTO persist.statements t USING (${select(45, 60, "m")}) s ON t.id = s.id " +
      "WHEN MATCHED THEN UPDATE SET name = s.name WHEN NOT MATCHED THEN INSERT *") { m =>
      m.map { case (id, n, v) => (id, if (id >= 45) s"m$id" else n, v) } ++ rows(45, 60, "m").filterNot(r => m.exists(_._1 == r._1))
    }
    val before = store.open("statements").state.batches.size
    step("CALL persist.system.compact(shard => 'statements', fan_in => 2)")(identity)
    assert(store.open("statements").state.batches.size < before, "the compaction merged batches")
    assert(store.open("statements").state.parts.exists(p => p.hasRetractions && p.positions.isEmpty),
      "the compaction left retractions that no positions name")
    // Every version from the first INSERT on has its snapshot.
    assert(shownVersions(icebergTable(location("statements"))) === (1L to version("statements")))
    expected.keys.foreach(assertShown(_, "the compaction"))

    // An append after it adds an insert-only batch: the deletes of the parts before it are reused, not recomputed.
    val compacted = version("statements")
    step(s"INSERT INTO persist.statements ${select(60, 70, "a")}")(_ ++ rows(60, 70, "a"))
    assert(deleteFiles("statements", version("statements")) === deleteFiles("statements", compacted))
    assert(deleteFiles("statements", compacted).forall(_.contains("/metadata/deletes/values-")))
  }

  private def update(table: String, rows: (String, Long, Long)*): Unit =
    ShardWriter.write(rows.toDF("k", "t", "d").coalesce(1), store.open(table), WriteOptions(timeCol = Some("t"), diffCol = Some("d")))

  test("duplicates: a row inserted twice and retracted once by value keeps one copy; a copy compaction summed says why not") {
    sql("CREATE TABLE persist.dups (k STRING) TBLPROPERTIES ('order_by' = 'k', 'sparkpersist.iceberg' = 'true')")
    update("dups", ("a", 100L, 1L), ("b", 100L, 1L))
    update("dups", ("a", 200L, 1L), ("c", 200L, 1L))
    update("dups", ("a", 300L, -1L), ("c", 300L, -1L), ("d", 300L, 1L))
    val retracted = version("dups")
    update("dups", ("a", 400L, 1L))
    val status = sync("dups")
    assert((status.getLong(0), status.isNullAt(6)) === (version("dups"), true))
    val oracle = (ks: Seq[String]) => plainParquet(ks.toDF("k"), "true")
    Seq(Seq("a", "b"), Seq("a", "a", "b", "c"), Seq("a", "b", "d"), Seq("a", "a", "b", "d")).zipWithIndex.foreach {
      case (rows, i) => assert(shown("dups", retracted - 2 + i) === oracle(rows), s"version ${retracted - 2 + i}")
    }
    // Deleted: the later copy of 'a' (the first is kept), 'c', and the two retractions; the append after reuses the file.
    val deletes = deleteFiles("dups", retracted).toSeq
    assert(deletes.size === 1 && deleteFiles("dups", retracted + 1) === deletes.toSet)
    val parts = store.open("dups").state.batches.map(b => IcebergTables.dataPath(store.open("dups"), b.parts.next().key))
    checkAnswer(spark.read.parquet(deletes.head).select("file_path", "pos"),
      Seq((parts(1), 0L), (parts(1), 1L), (parts(2), 0L), (parts(2), 1L)).toDF())

    // Retention consolidates the copies of 'a' into one row of multiplicity 2, which one data file row cannot
    // hold: that version is not shown, and the metadata says why.
    update("dups", ("e", 500L, 1L))
    sql("CALL persist.system.compact(shard => 'dups', retention_ms => 0)")
    checkAnswer(sql("SELECT k, diff FROM persist.dups.updates WHERE k = 'a'"), Seq(("a", 2L)).toDF())
    val after = sync("dups")
    // The compaction's rounds commit a version each: the metadata shows the last one before the copies were summed.
    val last = after.getLong(0)
    assert(last >= retracted + 2 && last < version("dups"))
    assert(after.getString(6) === s"shard version ${version("dups")} is not shown: version ${version("dups")} retracts " +
      "rows by value, and a row it keeps 2 times is held by 0 rows of multiplicity 1 (a compaction consolidated its " +
      "copies into a row of multiplicity above 1, which data files cannot repeat)")
    assert(shownVersions(icebergTable(location("dups"))) === (retracted - 2 to last))
    assert(shown("dups", last) === oracle(Seq("a", "a", "b", "d", "e")))
    val t = icebergTable(location("dups"))
    checkAnswer(sql("SELECT version, icebergSnapshotId, icebergNote FROM persist.dups.history " +
      s"WHERE version IN ($last, ${version("dups")})"), Seq(Row(last, snapshotOf(t, last).snapshotId(), null),
      Row(version("dups"), null, after.getString(6).stripPrefix(s"shard version ${version("dups")} is not shown: "))))
  }
}
