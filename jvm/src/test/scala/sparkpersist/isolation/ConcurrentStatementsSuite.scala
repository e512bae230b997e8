package sparkpersist.isolation

import org.apache.spark.SparkConf
import org.apache.spark.sql.execution.{CommandExecutionMode, QueryExecution, SQLExecution}

import sparkpersist.{PersistConf, PersistSparkSession}
import sparkpersist.shard.BatchMeta

/**
 * Statements beside other commits, each race made deterministic: the statement is planned (its
 * state and the parts it reads fixed, as when Spark plans it), other commits land, then it runs.
 * The oracle is Spark's in-memory table of row-level operations, which runs the same statements
 * one after another in the order the isolation level promises.
 */
class ConcurrentStatementsSuite extends PersistSparkSession {

  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.catalog.oracle", "org.apache.spark.sql.connector.catalog.InMemoryRowLevelOperationTableCatalog")

  private val Columns = "id INT, v STRING"

  /** Plans `statement` on the shard, runs `meanwhile` (other commits), then runs the statement. */
  private def racing(statement: String)(meanwhile: => Unit): Unit = {
    val planned = new QueryExecution(spark, spark.sessionState.sqlParser.parsePlan(statement),
      mode = CommandExecutionMode.SKIP)
    planned.executedPlan // its scans are planned here: the state it read and the parts it reads are fixed
    meanwhile
    // Run as a Dataset action runs it (its metrics set up on the driver, as Spark 4.1's MERGE needs).
    SQLExecution.withNewExecutionId(planned)(planned.executedPlan.executeCollect())
  }

  /** Runs `statement` (over `{t}`) on the oracle only. */
  private def onOracle(table: String, statement: String): Unit =
    withSQLConf("spark.sql.optimizer.excludedRules" ->
        "org.apache.spark.sql.execution.datasources.v2.OptimizeMetadataOnlyDeleteFromTable") {
      sql(statement.replace("{t}", s"oracle.$table"))
    }

  private def both(table: String, statement: String): Unit = {
    onOracle(table, statement)
    sql(statement.replace("{t}", s"persist.$table"))
  }

  /** The shard's rows (the same in every pushdown mode) equal the oracle's. */
  private def sameRows(table: String, clue: String): Unit = {
    val expected = sql(s"SELECT * FROM oracle.$table").collect().map(_.toString).toSeq.sorted
    assert(inEveryMode(s"SELECT * FROM persist.$table")._1 === expected, clue)
  }

  /** Two parts: ids 1-5 ('jan') and 11-15 ('mar'), each written by one INSERT. */
  private def create(table: String, properties: String = ""): Unit = {
    sql(s"CREATE TABLE oracle.$table ($Columns)")
    sql(s"CREATE TABLE persist.$table ($Columns) $properties")
    both(table, "INSERT INTO {t} VALUES (1, 'jan'), (2, 'jan'), (3, 'jan'), (4, 'jan'), (5, 'jan')")
    both(table, "INSERT INTO {t} VALUES (11, 'mar'), (12, 'mar'), (13, 'mar'), (14, 'mar'), (15, 'mar')")
  }

  private def lastBatch(table: String): BatchMeta = store.open(table).state.batches.last

  private def conflictOf(e: Throwable): Option[ConcurrentShardUpdate] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst { case c: ConcurrentShardUpdate => c }

  private val statements = Seq(
    "DELETE FROM {t} WHERE id = 2",
    "UPDATE {t} SET v = 'upd' WHERE id >= 3 AND id <= 4",
    "MERGE INTO {t} t USING (SELECT 1 AS id UNION ALL SELECT 9 AS id) s ON t.id = s.id " +
      "WHEN MATCHED THEN UPDATE SET v = 'merged' WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 'new')",
    "INSERT OVERWRITE {t} SELECT id, v FROM {t} WHERE id <> 5")

  test("a statement commits after appends that landed while it ran, as if it ran before them") {
    statements.zipWithIndex.foreach { case (statement, i) =>
      val table = s"append$i"
      create(table)
      val readUpper = store.open(table).state.upper
      // Rows the statement's condition would match, had it read them: it did not, so they stay.
      val appended = "INSERT INTO {t} VALUES (2, 'late'), (4, 'late'), (1, 'late'), (5, 'late')"
      racing(statement.replace("{t}", s"persist.$table"))(sql(appended.replace("{t}", s"persist.$table")))
      onOracle(table, statement)
      onOracle(table, appended)
      sameRows(table, statement)
      val batch = lastBatch(table)
      assert(batch.commit.flatMap(_.readUpper) === Some(readUpper), statement)
      assert(batch.lower > readUpper, s"$statement: its batch follows the append")
      // The append's version reads as it did: the statement's updates are all after it.
      val appendTime = batch.lower - 1
      withSQLConf(PersistConf.AsOf.key -> appendTime.toString) {
        assert(sql(s"SELECT count(*) FROM persist.$table").head().getLong(0) === 14, statement)
      }
      assert(sql(s"SELECT min(time) FROM persist.$table.updates WHERE time > $appendTime").head().getLong(0) ===
        batch.upper - 1, s"$statement: every update of the rebased batch reads at its new time")
    }
  }

  test("a statement conflicts with a commit that retracted rows of a part it read, names it, writes nothing") {
    create("conflict")
    val before = inEveryMode("SELECT * FROM persist.conflict")._1
    val e = intercept[Exception] {
      racing("UPDATE persist.conflict SET v = 'upd' WHERE id <= 3") {
        sql("DELETE FROM persist.conflict WHERE id = 1")
      }
    }
    val conflict = conflictOf(e).getOrElse(fail(e))
    val other = lastBatch("conflict")
    assert(conflict.getMessage.contains(s"UPDATE on shard 'conflict' conflicted with a concurrent commit: state version " +
      s"${store.open("conflict").state.seqNo} (batch '${other.id}', DELETE, committed at"), conflict.getMessage)
    assert(conflict.getMessage.contains("which this statement read"))
    assert(conflict.getMessage.contains("run the statement again"))
    assert(inEveryMode("SELECT * FROM persist.conflict")._1 === before.filterNot(_ == "[1,jan]"))
  }

  test("statements on disjoint parts both commit: a DELETE of January beside an UPDATE of March") {
    create("disjoint")
    racing("UPDATE persist.disjoint SET v = 'upd' WHERE id > 10")(sql("DELETE FROM persist.disjoint WHERE id < 10"))
    onOracle("disjoint", "DELETE FROM {t} WHERE id < 10")
    onOracle("disjoint", "UPDATE {t} SET v = 'upd' WHERE id > 10")
    sameRows("disjoint", "both statements applied")
    racing("DELETE FROM persist.disjoint WHERE id = 12")(sql("UPDATE persist.disjoint SET v = 'x' WHERE id < 10"))
    onOracle("disjoint", "DELETE FROM {t} WHERE id = 12")
    sameRows("disjoint", "an UPDATE that matched nothing")
  }

  test("Serializable: an append the condition may match conflicts, one its statistics rule out does not") {
    create("ser", "TBLPROPERTIES ('sparkpersist.isolationLevel' = 'serializable')")
    assert(sql("SHOW TBLPROPERTIES persist.ser").collect().map(r => r.getString(0) -> r.getString(1))
      .contains(IsolationLevel.Property -> "Serializable"))
    val e = intercept[Exception] {
      racing("DELETE FROM persist.ser WHERE id = 3")(sql("INSERT INTO persist.ser VALUES (3, 'late')"))
    }
    assert(conflictOf(e).exists(_.getMessage.contains("whose rows this statement's condition may match, and the " +
      "shard's isolation level is Serializable")), e)
    onOracle("ser", "INSERT INTO {t} VALUES (3, 'late')")
    sameRows("ser", "the DELETE wrote nothing")
    racing("DELETE FROM persist.ser WHERE id = 3")(sql("INSERT INTO persist.ser VALUES (100, 'far')"))
    onOracle("ser", "DELETE FROM {t} WHERE id = 3")
    onOracle("ser", "INSERT INTO {t} VALUES (100, 'far')")
    sameRows("ser", "an append the condition rules out does not conflict")
    sql(s"ALTER TABLE persist.ser UNSET TBLPROPERTIES ('${IsolationLevel.Property}')")
    racing("DELETE FROM persist.ser WHERE id = 100")(sql("INSERT INTO persist.ser VALUES (100, 'again')"))
    onOracle("ser", "DELETE FROM {t} WHERE id = 100")
    onOracle("ser", "INSERT INTO {t} VALUES (100, 'again')")
    sameRows("ser", "WriteSerializable again")
    val bad = intercept[Exception](sql(s"ALTER TABLE persist.ser SET TBLPROPERTIES ('${IsolationLevel.Property}' = 'snapshot')"))
    assert(bad.getMessage.contains("'snapshot' is not an isolation level"), bad)
  }

  test("a compaction between read and commit: the retractions land once; a statement after it on the same rows conflicts") {
    create("compacted")
    racing("DELETE FROM persist.compacted WHERE id IN (2, 12)") {
      sql("CALL persist.system.compact(shard => 'compacted', fan_in => 2)").collect()
    }
    onOracle("compacted", "DELETE FROM {t} WHERE id IN (2, 12)")
    sameRows("compacted", "the DELETE after the compaction")
    // The UPDATE reads the parts the compaction replaces; the DELETE retracts rows of its output.
    sql("INSERT INTO persist.compacted VALUES (20, 'x')")
    onOracle("compacted", "INSERT INTO {t} VALUES (20, 'x')")
    val e = intercept[Exception] {
      racing("UPDATE persist.compacted SET v = 'upd' WHERE id = 1") {
        sql("CALL persist.system.compact(shard => 'compacted', fan_in => 2)").collect()
        sql("DELETE FROM persist.compacted WHERE id = 1")
      }
    }
    assert(conflictOf(e).isDefined, e)
    onOracle("compacted", "DELETE FROM {t} WHERE id = 1")
    sameRows("compacted", "the UPDATE wrote nothing")
  }

  test("a batch the statement read dropped meanwhile (drop_batch) conflicts") {
    create("dropped")
    val jan = store.open("dropped").state.batches.head.id
    val e = intercept[Exception] {
      racing("DELETE FROM persist.dropped WHERE id = 1") {
        sql(s"CALL persist.system.drop_batch(shard => 'dropped', batch => '$jan')").collect()
      }
    }
    assert(conflictOf(e).exists(_.getMessage.contains(s"it removed batch '$jan' (drop_batch)")), e)
  }

  test("a statement gives up once it would rebase more often than statement.maxRebases") {
    create("bounded")
    withSQLConf(PersistConf.StatementMaxRebases.key -> "0") {
      val e = intercept[Exception] {
        racing("DELETE FROM persist.bounded WHERE id = 1")(sql("INSERT INTO persist.bounded VALUES (30, 'x')"))
      }
      assert(conflictOf(e).exists(_.getMessage.contains(s"${PersistConf.StatementMaxRebases.key} = 0")), e)
    }
  }

  test("a rebased batch records what wrote it and the session's user metadata; its state needs format version 10") {
    create("info")
    val later = store.open("info").state.upper + 60000
    withSQLConf(PersistConf.CommitUserMetadata.key -> "nightly fix #7") {
      // An update a minute ahead moves the upper past the statement's time: its updates move with it.
      racing("UPDATE persist.info SET v = 'u' WHERE id = 1")(sql(s"INSERT INTO persist.info.updates VALUES (40, 'x', $later, 1)"))
    }
    val state = store.open("info").state
    val batch = state.batches.last
    assert(batch.commit.map(c => (c.operation, c.userMetadata)) === Some(("UPDATE", Some("nightly fix #7"))))
    assert(state.batches.init.last.commit.map(_.operation) === Some("WRITE"))
    assert(batch.lower === later + 1 && batch.parts.forall(p => p.minTime == later + 1 && p.rebasedFrom.exists(_ < later)))
    val newest = new java.io.File(root, s"info/${sparkpersist.shard.ShardStore.StateDir}/" +
      f"${state.seqNo}%020d.json")
    assert(new String(java.nio.file.Files.readAllBytes(newest.toPath), "UTF-8").contains("\"formatVersion\":10"))
    assert(sql(s"SELECT id, v, time, diff FROM persist.info.updates WHERE time > $later").collect().map(_.toString).sorted ===
      Array(s"[1,jan,${later + 1},-1]", s"[1,u,${later + 1},1]"))
    onOracle("info", "UPDATE {t} SET v = 'u' WHERE id = 1")
    onOracle("info", "INSERT INTO {t} VALUES (40, 'x')")
    sameRows("info", "the rebased UPDATE")
    // Reopened from its files (a rollup and the versions after it), the state is the same.
    assert(new sparkpersist.shard.ShardStore(root.toURI.toString, spark.sessionState.newHadoopConf()).open("info").state
      .batches === state.batches)
  }
}
