package sparkpersist.iceberg

import java.nio.file.Files

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.iceberg.expressions.Expressions
import org.apache.spark.sql.Row
import org.apache.spark.sql.QueryTest

import sparkpersist.PersistSparkSession

/**
 * The Iceberg metadata of shards with `sparkpersist.iceberg` on, read back through Iceberg's own Java
 * API ([[IcebergReading]]) and compared with plain Spark over a plain Parquet copy of the rows a model
 * of the statements holds: after every statement of random histories of appends, DELETE, UPDATE,
 * MERGE, compaction and garbage collection, at every version the metadata still shows.
 */
class IcebergMetadataSuite extends QueryTest with PersistSparkSession with IcebergReading {

  private type Model = Map[Long, (String, Long)]

  /** Plain Spark over a plain Parquet copy of the model's rows: the expected rows, sorted. */
  private def expected(model: Model): Seq[Row] = {
    val dir = Files.createTempDirectory("iceberg-oracle").resolve("rows").toString
    import testImplicits._
    model.toSeq.map { case (id, (name, v)) => (id, name, v) }.toDF("id", "name", "v").write.parquet(dir)
    withSQLConf("spark.sql.parquet.filterPushdown" -> "false") {
      spark.read.parquet(dir).collect().toSeq.sortBy(_.getLong(0))
    }
  }

  // What the snapshots hold, each written before its statement returns; IcebergAsyncSuite tests the background writer.
  override protected def sparkConf: org.apache.spark.SparkConf =
    super.sparkConf.set(sparkpersist.PersistConf.IcebergAsync.key, "false")

  private def location(table: String): String = store.open(table).dir.toString
  private def version(table: String): Long = store.open(table).state.seqNo

  private def create(table: String, iceberg: Boolean = true): Unit =
    sql(s"CREATE TABLE persist.$table (id BIGINT, name STRING, v BIGINT)" +
      (if (iceberg) " TBLPROPERTIES ('sparkpersist.iceberg' = 'true')" else ""))

  private def insert(table: String, from: Long, until: Long): Unit =
    sql(s"INSERT INTO persist.$table SELECT id, concat('n', id), id * 10 FROM range($from, $until, 1, 2)")

  private def inserted(model: Model, from: Long, until: Long): Model =
    model ++ (from until until).map(id => id -> (s"n$id", id * 10))

  /** Asserts that the snapshot of `shardVersion` holds exactly the model's rows. */
  private def assertShows(table: String, shardVersion: Long, model: Model): Unit = {
    val t = icebergTable(location(table))
    val (rows, _) = icebergRows(t, snapshotOf(t, shardVersion))
    assert(rows.sortBy(_.getLong(0)) === expected(model), s"shard version $shardVersion")
  }

  test("appends: one snapshot per version, data files with bounds Iceberg prunes by, rows equal") {
    create("appends")
    var model: Model = Map.empty
    Seq((0L, 100L), (100L, 200L), (200L, 300L)).foreach { case (a, b) =>
      insert("appends", a, b)
      model = inserted(model, a, b)
      assertShows("appends", version("appends"), model)
    }
    val t = icebergTable(location("appends"))
    // Version 0 creates the shard, 1 sets nothing: the three appends are versions 1..3.
    assert(shownVersions(t) === Seq(1L, 2L, 3L))
    assert(t.schema().columns().asScala.map(c => c.fieldId() -> c.name()) === Seq(1 -> "id", 2 -> "name", 3 -> "v"))
    val newest = t.currentSnapshot()
    val (all, files) = icebergRows(t, newest)
    assert(all.size === 300)
    assert(files === store.open("appends").state.partCount)
    val (pruned, planned) = icebergRows(t, newest, Expressions.greaterThanOrEqual("id", 250L))
    assert(planned < files, "the bounds let Iceberg plan fewer files than the shard has")
    assert(pruned.filter(_.getLong(0) >= 250).sortBy(_.getLong(0)) === expected(model.filter(_._1 >= 250)))
    // Earlier versions stay readable, each as it was.
    assertShows("appends", 1, inserted(Map.empty, 0, 100))
  }

  test("the table property at CREATE and ALTER; a bad value is refused saying what it takes") {
    create("prop", iceberg = false)
    insert("prop", 0, 10)
    assert(!new java.io.File(new java.net.URI(location("prop") + "/metadata")).exists())
    sql("ALTER TABLE persist.prop SET TBLPROPERTIES ('sparkpersist.iceberg' = 'true')")
    insert("prop", 10, 20)
    val t = icebergTable(location("prop"))
    assert(shownVersions(t) === Seq(version("prop")))
    assertShows("prop", version("prop"), inserted(Map.empty, 0, 20))
    val e = intercept[Exception](sql("ALTER TABLE persist.prop SET TBLPROPERTIES ('sparkpersist.iceberg' = 'yes')"))
    assert(refusedChange(e).contains("table property 'sparkpersist.iceberg' is 'true'"))
    val shown = version("prop")
    sql("ALTER TABLE persist.prop UNSET TBLPROPERTIES ('sparkpersist.iceberg')")
    insert("prop", 20, 30)
    assert(shownVersions(icebergTable(location("prop"))) === Seq(shown))
  }

  test("CALL persist.system.iceberg writes the metadata of a shard without the property, then catches up") {
    create("called", iceberg = false)
    insert("called", 0, 50)
    val first = sql("CALL persist.system.iceberg(shard => 'called')").collect().head
    assert(first.getLong(0) === version("called"))
    assert(first.getAs[String]("metadata_location").endsWith("/metadata/v2.metadata.json"))
    assert((first.getAs[Long]("data_files"), first.getAs[Long]("delete_files"), first.getAs[Int]("snapshots_written"),
      first.isNullAt(6)) === (store.open("called").state.partCount.toLong, 0L, 1, true))
    val again = sql("CALL persist.system.iceberg(shard => 'called')").collect().head
    assert((again.getLong(0), again.getLong(1), again.getInt(5)) === (first.getLong(0), first.getLong(1), 0))
    insert("called", 50, 60)
    insert("called", 60, 70)
    val caught = sql("CALL persist.system.iceberg('called')").collect().head
    assert((caught.getLong(0), caught.getInt(5)) === (version("called"), 2))
    val t = icebergTable(location("called"))
    assert(shownVersions(t) === Seq(first.getLong(0), version("called") - 1, version("called")))
    assertShows("called", version("called") - 1, inserted(Map.empty, 0, 60))
    assertShows("called", version("called"), inserted(Map.empty, 0, 70))
  }

  test("an overwrite retracts by value: its version is shown through deletes found by value, and the history names it") {
    create("over")
    insert("over", 0, 20)
    val shown = version("over")
    sql("INSERT OVERWRITE persist.over SELECT id, concat('m', id), id FROM range(5, 8)")
    val status = sql("CALL persist.system.iceberg('over')").collect().head
    assert((status.getLong(0), status.isNullAt(6)) === (version("over"), true))
    assertShows("over", shown, inserted(Map.empty, 0, 20))
    assertShows("over", version("over"), (5L until 8L).map(id => id -> (s"m$id", id)).toMap)
    val t = icebergTable(location("over"))
    checkAnswer(sql("SELECT version, icebergSnapshotId, icebergNote FROM persist.over.history"), Seq(
      Row(0L, null, "version 0 creates the shard: it has no complete time to show"),
      Row(shown, snapshotOf(t, shown).snapshotId(), null),
      Row(version("over"), snapshotOf(t, version("over")).snapshotId(), null)))
  }

  Seq(7L, 11L).foreach { seed =>
    test(s"random histories of appends, DELETE, UPDATE, MERGE, compaction and gc (seed $seed)") {
      val table = s"random$seed"
      val random = new Random(seed)
      create(table)
      var model: Model = Map.empty
      var next = 0L
      var history = Map.empty[Long, Model]
      (1 to 12).foreach { step =>
        random.nextInt(7) match {
          case 0 | 1 =>
            val n = 20 + random.nextInt(40)
            insert(table, next, next + n)
            model = inserted(model, next, next + n)
            next += n
          case 2 =>
            val (m, r) = (2 + random.nextInt(5), random.nextInt(2))
            sql(s"DELETE FROM persist.$table WHERE id % $m = $r")
            model = model.filterNot { case (id, _) => id % m == r }
          case 3 =>
            val m = 2 + random.nextInt(5)
            sql(s"UPDATE persist.$table SET v = v + 1 WHERE id % $m = 1")
            model = model.map { case (id, (n, v)) => id -> (n, if (id % m == 1) v + 1 else v) }
          case 4 =>
            val from = math.max(0L, next - 10)
            sql(s"MERGE INTO persist.$table t USING (SELECT id, concat('m', id) AS name, id AS v FROM range($from, ${next + 10})) s " +
              "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
            model = model ++ (from until next + 10).map(id => id -> model.get(id).fold((s"m$id", id))(r => (r._1, id)))
            next += 10
          case 5 =>
            sql(s"CALL persist.system.compact(shard => '$table')")
          case 6 =>
            sql(s"CALL persist.system.gc('$table', keep_versions => 2, grace_ms => 0)")
        }
        history += version(table) -> model
        val status = sql(s"CALL persist.system.iceberg('$table')").collect().head
        assert(status.isNullAt(6), s"step $step: ${status.getString(6)}")
        assert(status.getLong(0) === version(table))
        val t = icebergTable(location(table))
        // The newest and the oldest snapshot the metadata keeps show their versions' rows (every file they read exists).
        val kept = shownVersions(t).filter(history.contains)
        (kept.headOption.toSeq :+ kept.last).distinct.foreach(v => assertShows(table, v, history(v)))
      }
    }
  }
}
