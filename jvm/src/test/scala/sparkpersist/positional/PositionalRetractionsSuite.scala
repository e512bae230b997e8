package sparkpersist.positional

import org.apache.hadoop.fs.Path
import org.apache.spark.SparkConf
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.functions.{col, lit}

import sparkpersist.{PersistConf, PersistSparkSession}
import sparkpersist.compact.{CompactOptions, GcOptions, Lifecycle}
import sparkpersist.shard.ShardHandle
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * Row-level operations record the positions of the rows they retract, and snapshots are read by
 * position: compared with an oracle (Spark's in-memory table of row-level operations, running the
 * same statements) in every pushdown mode, as columnar batches and as rows, by position and by
 * value, at every earlier as-of and after compaction; parts of several row groups of several
 * pages, split between tasks, and filters that skip row groups (never pages, which would break the
 * count), so a read's positions start past a file's first row and jump between groups.
 */
class PositionalRetractionsSuite extends PersistSparkSession {

  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.catalog.oracle", "org.apache.spark.sql.connector.catalog.InMemoryRowLevelOperationTableCatalog")

  private val Columns = "id BIGINT, grp INT, bal DOUBLE, tag STRING"

  private def rows(query: String): Seq[String] = sql(query).collect().map(_.toString).toSeq.sorted

  /** Runs `statement` on the shard and on the oracle (`{t}` names the table). */
  private def both(table: String, statement: String): Unit = {
    withSQLConf("spark.sql.optimizer.excludedRules" ->
        "org.apache.spark.sql.execution.datasources.v2.OptimizeMetadataOnlyDeleteFromTable") {
      sql(statement.replace("{t}", s"oracle.$table"))
    }
    sql(statement.replace("{t}", s"persist.$table"))
  }

  /** How the scan of `query` reads: its description's `read=` ("snapshot" or "consolidatedsnapshot"). */
  private def readMode(query: String): String = {
    val scan = sql(query).queryExecution.executedPlan.collectFirst { case b: BatchScanExec => b.scan }.get
    "read=(\\w+)".r.findFirstMatchIn(scan.description()).get.group(1)
  }

  /**
   * The shard's rows, and those of `filtered`, equal the oracle's in every pushdown mode, as
   * batches and as rows, by position and by value; returns the snapshot.
   */
  private def agrees(table: String, filtered: String): Seq[String] = {
    val expected = rows(s"SELECT * FROM oracle.$table")
    val expectedFiltered = rows(filtered.replace("{t}", s"oracle.$table"))
    for {
      columnar <- Seq("true", "false")
      positional <- Seq("true", "false")
    } withSQLConf(PersistConf.ColumnarReads.key -> columnar, PersistConf.PositionalReads.key -> positional,
        // Parts split between tasks, each reading the row groups whose middle lies in its bytes.
        "spark.sql.files.maxPartitionBytes" -> "16384", "spark.sql.files.openCostInBytes" -> "1024") {
      val clue = s"columnar=$columnar positional=$positional"
      assert(inEveryMode(s"SELECT * FROM persist.$table")._1 === expected, clue)
      assert(inEveryMode(filtered.replace("{t}", s"persist.$table"))._1 === expectedFiltered, clue)
      assert(rows(s"SELECT count(*), sum(bal) FROM persist.$table") ===
        rows(s"SELECT count(*), sum(bal) FROM oracle.$table"), clue)
    }
    expected
  }

  private def positionsFiles(shard: ShardHandle): Set[String] = shard.state.parts.flatMap(_.positions).toSet

  test("DELETE, UPDATE and MERGE record the positions they retract; snapshots read by position equal the oracle's") {
    val table = "acct"
    sql(s"CREATE TABLE oracle.$table ($Columns)")
    sql(s"CREATE TABLE persist.$table ($Columns) TBLPROPERTIES ('order_by' = 'id')")
    // Parts of several row groups (16 KiB each) of several pages (1 KiB), rows 0 to 9 held twice.
    withSQLConf("parquet.block.size" -> "16384", "parquet.page.size" -> "1024") {
      Seq("range(0, 3000)", "range(3000, 6000)", "range(0, 10)").foreach { range =>
        both(table, s"INSERT INTO {t} SELECT /*+ COALESCE(2) */ id, CAST(id % 5 AS INT), id * 1.5, " +
          s"concat('t', id % 13) FROM $range")
      }
    }
    val filtered = "SELECT id, bal, tag FROM {t} WHERE id BETWEEN 1000 AND 4000 AND grp IN (1, 3) AND bal > 1600"
    val history = Seq.newBuilder[(Long, Seq[String])]
    val statements = Seq(
      "UPDATE {t} SET bal = bal + 1 WHERE id % 7 = 3",
      "DELETE FROM {t} WHERE id % 11 = 5 OR id < 2",
      """MERGE INTO {t} t USING (SELECT id * 3 AS id, CAST(0 AS INT) AS grp, -1.0D AS bal, 'm' AS tag FROM range(0, 2200)) s
        |ON t.id = s.id
        |WHEN MATCHED AND s.id % 2 = 0 THEN UPDATE SET bal = s.bal, tag = s.tag
        |WHEN MATCHED AND s.id % 5 = 1 THEN DELETE
        |WHEN NOT MATCHED THEN INSERT *""".stripMargin,
      // Rows the statements above wrote (the retracting parts' inserts) are retracted by position too.
      "UPDATE {t} SET tag = 'again' WHERE id % 7 = 3 OR tag = 'm'",
      "DELETE FROM {t} WHERE id = 3")
    statements.zipWithIndex.foreach { case (statement, step) =>
      both(table, statement)
      val shard = store.open(table)
      val written = shard.state.batches.last
      assert(written.parts.filter(_.hasRetractions).forall(_.positions.nonEmpty), s"step $step: $statement")
      assert(written.parts.exists(_.positions.nonEmpty), s"step $step")
      positionsFiles(shard).foreach(key => assert(shard.fs.exists(new Path(shard.dir, key)), key))
      assert(readMode(s"SELECT * FROM persist.$table") === "snapshot", s"step $step")
      withSQLConf(PersistConf.PositionalReads.key -> "false") {
        assert(readMode(s"SELECT * FROM persist.$table") === "consolidatedsnapshot")
      }
      history += ((shard.state.upper - 1) -> agrees(table, filtered))
    }
    history.result().foreach { case (asOf, expected) =>
      withSQLConf(PersistConf.AsOf.key -> asOf.toString) {
        assert(inEveryMode(s"SELECT * FROM persist.$table")._1 === expected, s"as of $asOf")
      }
    }
    // The files stay while a live version refers to them. Compaction consolidates the settled
    // history (the named parts among it) and leaves the newest batch: its positions then name
    // parts that are gone, so snapshots consolidate by value, and garbage collection deletes the
    // files no part refers to any more.
    val shard = store.open(table)
    val files = positionsFiles(shard)
    Lifecycle.gc(spark, table, GcOptions(keepVersions = Some(1), graceMs = Some(0L)))
    files.foreach(key => assert(shard.fs.exists(new Path(shard.dir, key)), key))
    Lifecycle.compact(spark, table, CompactOptions(retentionMs = Some(0L)))
    val left = positionsFiles(store.open(table))
    assert(left.size < files.size)
    assert(readMode(s"SELECT * FROM persist.$table") === (if (left.isEmpty) "snapshot" else "consolidatedsnapshot"))
    assert(inEveryMode(s"SELECT * FROM persist.$table")._1 === rows(s"SELECT * FROM oracle.$table"))
    Lifecycle.gc(spark, table, GcOptions(keepVersions = Some(1), graceMs = Some(0L)))
    files.foreach(key => assert(shard.fs.exists(new Path(shard.dir, key)) === left(key), key))
    both(table, "DELETE FROM {t} WHERE id % 13 = 1")
    agrees(table, filtered)
  }

  test("a retraction without positions: snapshots consolidate by value, and statements record none until compacted away") {
    val table = "mixed"
    sql(s"CREATE TABLE oracle.$table ($Columns)")
    sql(s"CREATE TABLE persist.$table ($Columns)")
    both(table, "INSERT INTO {t} SELECT id, CAST(id % 5 AS INT), id * 1.5, 't' FROM range(0, 500)")
    both(table, "UPDATE {t} SET bal = -bal WHERE id % 10 = 1")
    assert(readMode(s"SELECT * FROM persist.$table") === "snapshot")
    // A retraction written as an update with its own diff names no stored row.
    val shard = store.open(table)
    ShardWriter.write(spark.range(20, 30).where("id % 10 != 1").selectExpr("id", "CAST(id % 5 AS INT) AS grp", "CAST(id * 1.5 AS DOUBLE) AS bal", "'t' AS tag")
      .withColumn("t", lit(shard.state.upper)).withColumn("d", lit(-1L)), shard, WriteOptions(Some("t"), Some("d")))
    sql("DELETE FROM oracle.mixed WHERE id >= 20 AND id < 30 AND id % 10 != 1")
    assert(readMode(s"SELECT * FROM persist.$table") === "consolidatedsnapshot")
    both(table, "UPDATE {t} SET tag = 'u' WHERE id % 10 = 2")
    assert(store.open(table).state.batches.last.parts.forall(_.positions.isEmpty))
    agrees(table, "SELECT * FROM {t} WHERE id < 100 AND tag = 'u'")
    // Once compaction consolidated them (a later append puts them below since, settled).
    both(table, "INSERT INTO {t} VALUES (1000, 0, 1.0D, 'late')")
    Lifecycle.compact(spark, table, CompactOptions(retentionMs = Some(0L)))
    assert(!store.open(table).state.parts.exists(_.hasRetractions))
    both(table, "UPDATE {t} SET tag = 'v' WHERE id % 10 = 3")
    assert(store.open(table).state.batches.last.parts.exists(_.positions.nonEmpty))
    assert(readMode(s"SELECT * FROM persist.$table") === "snapshot")
    agrees(table, "SELECT * FROM {t} WHERE tag = 'v'")
  }

  test("a damaged positions file fails the read, naming it; reads by value still answer") {
    val table = "damaged"
    sql(s"CREATE TABLE persist.$table ($Columns)")
    sql(s"INSERT INTO persist.$table SELECT id, 1, id * 1.0, 't' FROM range(0, 100)")
    sql(s"DELETE FROM persist.$table WHERE id % 3 = 0")
    val shard = store.open(table)
    val key = positionsFiles(shard).head
    val path = new Path(shard.dir, key)
    val bytes = { val in = shard.fs.open(path); try in.readAllBytes() finally in.close() }
    bytes(bytes.length / 2) = (bytes(bytes.length / 2) ^ 0x5a).toByte
    shard.fs.delete(path, false)
    val out = shard.fs.create(path)
    try out.write(bytes) finally out.close()
    val e = intercept[Exception](sql(s"SELECT * FROM persist.$table").collect())
    assert(e.getMessage.contains(s"Positions file") && e.getMessage.contains(key) && e.getMessage.contains("damaged"),
      e.getMessage)
    withSQLConf(PersistConf.PositionalReads.key -> "false") {
      assert(sql(s"SELECT count(*) FROM persist.$table").head.getLong(0) === 66)
    }
  }

  test("a positions file round-trips; a cursor over dropped positions answers ascending questions") {
    val fs = org.apache.hadoop.fs.FileSystem.getLocal(spark.sessionState.newHadoopConf())
    val path = new Path(root.getPath, "positions-roundtrip.bin")
    val written = RetractedPositions(Seq("part-00000-0000-a0.parquet"), Map(
      "parts/b/part-00001-0000-a0.parquet" -> new DroppedPositions(Array(0L, 1L, 127L, 128L, 1L << 40)),
      "parts/c/part-00000-0000-a0.parquet" -> new DroppedPositions(Array(5L))))
    written.write(fs, path)
    assert(RetractedPositions.read(fs, path) === written)
    val dropped = new DroppedPositions(Array(3L, 7L, 8L, 100L)).cursor()
    assert((0L to 110L).filter(dropped) === Seq(3L, 7L, 8L, 100L))
    val sparse = new DroppedPositions(Array(3L, 7L, 8L, 100L)).cursor()
    assert(Seq(2L, 8L, 9L, 100L, 200L).map(sparse) === Seq(false, true, false, true, false))
    assert(new DroppedPositions(Array(1L, 4L)).union(new DroppedPositions(Array(0L, 2L, 9L))) ===
      Some(new DroppedPositions(Array(0L, 1L, 2L, 4L, 9L))))
    assert(new DroppedPositions(Array(1L, 4L)).union(DroppedPositions.None) === Some(new DroppedPositions(Array(1L, 4L))))
    assert(new DroppedPositions(Array(1L, 4L)).union(new DroppedPositions(Array(4L))).isEmpty)
    assert(new DroppedPositions(Array(1L, 4L)).union(new DroppedPositions(Array(1L, 7L))).isEmpty)
    intercept[IllegalArgumentException](new DroppedPositions(Array(2L, 2L)))
  }
}
