package sparkpersist.table

import java.nio.file.Files

import org.apache.spark.SparkConf
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.{col, expr, lit}

import sparkpersist.PersistSparkSession
import sparkpersist.compact.{CompactOptions, GcOptions}

/**
 * Every method of [[ShardTable]] on a shard, each statement also run as SQL on an oracle: Spark's
 * own in-memory table of row-level operations (from Spark's test jar) holding the same rows. After
 * every statement both hold the same rows (duplicates counted), read in every pushdown mode.
 */
class ShardTableSuite extends PersistSparkSession {

  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.catalog.oracle", "org.apache.spark.sql.connector.catalog.InMemoryRowLevelOperationTableCatalog")
    // The in-memory table's own metadata-only delete fails on unpartitioned tables: row by row it is.
    .set("spark.sql.optimizer.excludedRules",
      "org.apache.spark.sql.execution.datasources.v2.OptimizeMetadataOnlyDeleteFromTable")

  private val Columns = "id INT, bal DOUBLE, tag STRING"

  /** A shard and an oracle table `name` holding the same rows, and the shard's table handle. */
  private def create(name: String): ShardTable = {
    Seq("oracle", "persist").foreach { catalog =>
      sql(s"CREATE TABLE $catalog.$name ($Columns)")
      sql(s"INSERT INTO $catalog.$name VALUES (1, 10.0, 'a'), (2, 20.0, 'b'), (2, 20.0, 'b'), (3, NULL, NULL), " +
        "(NULL, 5.0, 'n'), (4, 40.0, 'd')")
    }
    ShardTable.forName(spark, name)
  }

  private def rows(df: DataFrame): Seq[String] = df.collect().map(_.toString).toSeq.sorted

  /** Runs `op` on the shard and the SQL `statement` (over `{t}`) on the oracle; both then hold the same rows. */
  private def both(name: String, statement: String)(op: => Unit): Unit = {
    sql(statement.replace("{t}", s"oracle.$name"))
    op
    assert(inEveryMode(s"SELECT * FROM persist.$name")._1 === rows(sql(s"SELECT * FROM oracle.$name")), statement)
  }

  test("delete with a SQL condition, a Column and none does what DELETE FROM does") {
    val t = create("del")
    both("del", "DELETE FROM {t} WHERE id = 2")(t.delete("id = 2"))
    both("del", "DELETE FROM {t} WHERE bal > 30 OR tag IS NULL")(t.delete(col("bal") > 30 || col("tag").isNull))
    both("del", "DELETE FROM {t} WHERE id IS NULL")(t.as("x").delete("x.id IS NULL"))
    both("del", "DELETE FROM {t}")(t.delete())
    assert(rows(t.toDF).isEmpty)
  }

  test("update and updateExpr, with a condition or without, do what UPDATE does") {
    val t = create("upd")
    both("upd", "UPDATE {t} SET bal = bal + 1, tag = upper(tag) WHERE id <= 2") {
      t.update(col("id") <= 2, Map("bal" -> (col("bal") + 1), "tag" -> expr("upper(tag)")))
    }
    both("upd", "UPDATE {t} SET bal = 0.0 WHERE bal IS NULL")(t.updateExpr("bal IS NULL", Map("bal" -> "0.0")))
    both("upd", "UPDATE {t} SET id = id * 10")(t.updateExpr(Map("id" -> "id * 10")))
    both("upd", "UPDATE {t} SET tag = 'all'")(t.update(java.util.Map.of("tag", lit("all"))))
    val e = intercept[IllegalArgumentException](t.update(Map.empty[String, org.apache.spark.sql.Column]))
    assert(e.getMessage === "[PERSIST_INVALID_OPTION] ShardTable.update: name at least one column to set, with its new " +
      "value. SQLSTATE: 42K06")
  }

  test("merge with every kind of clause, SQL strings and Columns, does what MERGE INTO does") {
    val t = create("mrg")
    import testImplicits._
    val source = Seq((1, 11.0, "u"), (2, -1.0, "d"), (5, 50.0, "i"), (6, 60.0, "skip"), (7, 70.0, "e"))
      .toDF("id", "bal", "tag")
    source.createOrReplaceTempView("src")
    both("mrg",
      """MERGE INTO {t} t USING src s ON t.id = s.id
        |WHEN MATCHED AND s.tag = 'd' THEN DELETE
        |WHEN MATCHED THEN UPDATE SET t.bal = s.bal, t.tag = s.tag
        |WHEN NOT MATCHED AND s.tag = 'e' THEN INSERT (id, tag) VALUES (s.id, 'explicit')
        |WHEN NOT MATCHED AND s.tag <> 'skip' THEN INSERT *
        |WHEN NOT MATCHED BY SOURCE AND t.bal > 30 THEN UPDATE SET t.tag = 'stale'
        |WHEN NOT MATCHED BY SOURCE AND t.id IS NULL THEN DELETE""".stripMargin) {
      t.as("t").merge(source.as("s"), "t.id = s.id")
        .whenMatched("s.tag = 'd'").delete()
        .whenMatched().updateExpr(Map("t.bal" -> "s.bal", "t.tag" -> "s.tag"))
        .whenNotMatched(col("s.tag") === "e").insertExpr(Map("id" -> "s.id", "tag" -> "'explicit'"))
        .whenNotMatched("s.tag <> 'skip'").insertAll()
        .whenNotMatchedBySource(col("t.bal") > 30).update(Map("t.tag" -> lit("stale")))
        .whenNotMatchedBySource("t.id IS NULL").delete()
        .execute()
    }
    both("mrg",
      """MERGE INTO {t} t USING src s ON t.id = s.id
        |WHEN MATCHED THEN UPDATE SET *
        |WHEN NOT MATCHED THEN INSERT (id, bal, tag) VALUES (s.id + 100, s.bal, 'new')
        |WHEN NOT MATCHED BY SOURCE THEN UPDATE SET bal = -1.0""".stripMargin) {
      t.alias("t").merge(source.alias("s"), col("t.id") === col("s.id"))
        .whenMatched().updateAll()
        .whenNotMatched().insert(Map("id" -> (col("s.id") + 100), "bal" -> col("s.bal"), "tag" -> lit("new")))
        .whenNotMatchedBySource().updateExpr(Map("bal" -> "-1.0"))
        .execute()
    }
    val e = intercept[IllegalArgumentException](t.merge(source, "true").execute())
    assert(e.getMessage.startsWith("[PERSIST_INVALID_OPTION] ShardTable.merge: a MERGE needs at least one clause"))
  }

  test("a statement of the table commits what the same SQL statement commits: whole-part deletes, retractions") {
    // Twin shards written alike, one part per batch; each step runs as ShardTable on one, as SQL on the other.
    Seq("twin_api", "twin_sql").foreach { name =>
      sql(s"CREATE TABLE persist.$name ($Columns)")
      sql(s"INSERT INTO persist.$name SELECT /*+ REPARTITION(1) */ * FROM VALUES (1, 1.0, 'a'), (2, 2.0, 'b') AS v(id, bal, tag)")
      sql(s"INSERT INTO persist.$name SELECT /*+ REPARTITION(1) */ * FROM VALUES (100, 1.0, 'x'), (101, 2.0, 'y') AS v(id, bal, tag)")
    }
    val t = ShardTable.forName(spark, "twin_api")
    import testImplicits._
    Seq((2, 20.0, "u"), (7, 7.0, "i")).toDF("id", "bal", "tag").createOrReplaceTempView("twin_src")
    /** What a statement committed: its batch's parts (negated whole, with retractions, rows), and the rows after it. */
    def effect(name: String): (Seq[(Boolean, Boolean, Long)], Seq[String]) = {
      val batch = store.open(name).state.batches.last
      (batch.parts.map(p => (p.negated, p.hasRetractions, p.rowCount)).toSeq.sorted, rows(sql(s"SELECT * FROM persist.$name")))
    }
    def same(statement: String)(op: => Unit): Unit = {
      op
      val api = effect("twin_api")
      sql(statement.replace("{t}", "persist.twin_sql"))
      assert(api === effect("twin_sql"), statement)
    }
    same("DELETE FROM {t} WHERE id >= 100")(t.delete("id >= 100")) // the second part proven true: negated whole
    assert(store.open("twin_api").state.batches.last.parts.forall(_.negated))
    same("UPDATE {t} SET bal = 0.0 WHERE id = 1")(t.updateExpr("id = 1", Map("bal" -> "0.0")))
    same("MERGE INTO {t} t USING twin_src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *") {
      t.as("t").merge(spark.table("twin_src").as("s"), "t.id = s.id").whenMatched().updateAll()
        .whenNotMatched().insertAll().execute()
    }
  }

  test("toDF reads the shard's rows, under the alias when there is one") {
    val t = create("read")
    assert(rows(t.toDF) === rows(sql("SELECT * FROM oracle.read")))
    assert(rows(t.as("r").toDF.where("r.id = 2").select("r.tag")) === Seq("[b]", "[b]"))
    assert(t.alias("r").toString === "ShardTable(`persist`.`read` AS r)")
  }

  test("forName takes a shard or the catalog's table, refuses another catalog's and a missing shard") {
    create("named")
    assert(rows(ShardTable.forName(spark, "persist.named").toDF) === rows(ShardTable.forName("`named`").toDF))
    val other = intercept[IllegalArgumentException](ShardTable.forName(spark, "oracle.named"))
    assert(other.getMessage === "[PERSIST_INVALID_NAME.TABLE] Invalid name: 'oracle.named' is not a persist table " +
      "name. Use a shard ('events') or the persist catalog's table ('persist.events'); ShardTable.forPath for a shard " +
      "at a path. SQLSTATE: 42602")
    val missing = intercept[Exception](ShardTable.forName(spark, "nope"))
    assert(missing.getMessage.contains("nope"), missing.getMessage)
    assert(ShardTable.isShardTable(spark, "named") && ShardTable.isShardTable(spark, "persist.named"))
    assert(!ShardTable.isShardTable(spark, "nope") && !ShardTable.isShardTable(spark, "oracle.named"))
  }

  test("forPath holds the shard stored at a path, as persist.`<path>` does") {
    val dir = Files.createTempDirectory("shard-at-path").resolve("events").toUri.toString
    sql(s"CREATE TABLE persist.`$dir` ($Columns)")
    sql(s"INSERT INTO persist.`$dir` VALUES (1, 1.0, 'a'), (2, 2.0, 'b')")
    assert(ShardTable.isShardTable(spark, dir))
    val t = ShardTable.forPath(spark, dir)
    t.delete("id = 1")
    assert(rows(t.toDF) === Seq("[2,2.0,b]"))
    assert(rows(t.toDF) === rows(sql(s"SELECT * FROM persist.`$dir`")))
  }

  test("history lists the commits newest first, the operations run") {
    val t = create("hist")
    t.delete("id = 1")
    t.updateExpr("id = 2", Map("bal" -> "0.0"))
    import testImplicits._
    // (An insert-only MERGE is an append to Spark, which rewrites it as one: history says WRITE, as for the SQL.)
    t.as("t").merge(Seq((2, 9.0, "m"), (9, 9.0, "m")).toDF("id", "bal", "tag").as("s"), "t.id = s.id")
      .whenMatched().updateAll().whenNotMatched().insertAll().execute()
    val history = t.history()
    assert(history.select("operation").collect().map(_.getString(0)).toSeq.take(4) ===
      Seq("MERGE", "UPDATE", "DELETE", "WRITE"))
    val versions = history.select("version").collect().map(_.getLong(0)).toSeq
    assert(versions === versions.sorted.reverse && versions.head === store.open("hist").state.seqNo)
    assert(t.history(2).collect().map(_.getAs[Long]("version")).toSeq === versions.take(2))
  }

  test("restoreToVersion and restoreToTimestamp bring back the rows VERSION AS OF and TIMESTAMP AS OF read") {
    val t = create("rest")
    val version = store.open("rest").state.seqNo
    val asOf = store.open("rest").state.upper - 1
    val atVersion = rows(sql(s"SELECT * FROM persist.rest VERSION AS OF $version"))
    t.delete("id = 2")
    t.updateExpr(Map("tag" -> "'changed'"))
    assert(rows(t.toDF) !== atVersion)
    t.restoreToVersion(version)
    assert(inEveryMode("SELECT * FROM persist.rest")._1 === atVersion)
    assert(atVersion === rows(sql("SELECT * FROM oracle.rest")))
    t.delete()
    val timestamp = new java.sql.Timestamp(asOf).toInstant.toString
    val atTime = rows(sql(s"SELECT * FROM persist.rest TIMESTAMP AS OF '$timestamp'"))
    t.restoreToTimestamp(timestamp)
    assert(inEveryMode("SELECT * FROM persist.rest")._1 === atTime)
    assert(atTime === atVersion)
  }

  test("compact, gc and vacuum keep the rows; parts, batches and updates(since) are the shard's views") {
    val t = create("life")
    sql("INSERT INTO persist.life VALUES (5, 50.0, 'e')")
    sql("INSERT INTO oracle.life VALUES (5, 50.0, 'e')")
    both("life", "DELETE FROM {t} WHERE id = 4")(t.delete("id = 4"))
    assert(rows(t.parts) === rows(sql("SELECT * FROM persist.life.parts")))
    assert(rows(t.batches) === rows(sql("SELECT * FROM persist.life.batches")))
    val batchesBefore = t.batches.count()
    val state = store.open("life").state
    val detail = t.detail().collect().toSeq
    assert(detail.map(_.toSeq.take(5)) === Seq(Seq("persist", "`persist`.`life`", state.parts.size.toLong,
      state.parts.map(_.bytes).sum, state.batches.size.toLong)))
    assert(detail.head.getAs[java.sql.Timestamp]("lastModified").getTime === state.batches.map(_.committedAtMs).max)
    val since = sql("SELECT max(lower) FROM persist.life.batches").collect().head.getLong(0)
    assert(rows(t.updates) === rows(sql("SELECT * FROM persist.life.updates")))
    assert(rows(t.updates(since)) === rows(sql(s"SELECT * FROM persist.life.updates WHERE time >= $since")))
    assert(rows(t.updates(since).select("id", "diff")) === Seq("[4,-1]")) // the DELETE's batch: one retraction
    val compacted = t.compact(CompactOptions(fanIn = Some(2))).collect().head
    assert(compacted.getAs[Int]("batches_before") === batchesBefore)
    assert(compacted.getAs[Int]("batches_after") < batchesBefore)
    val windows = compacted.getSeq[Row](compacted.fieldIndex("windows"))
    assert(windows.map(_.getAs[Int]("parts_after")).sum === compacted.getAs[Int]("parts_after"))
    assert(windows.map(_.getAs[String]("action")).contains("merged"))
    assert(inEveryMode("SELECT * FROM persist.life")._1 === rows(sql("SELECT * FROM oracle.life")))
    val collected = t.gc(GcOptions(keepVersions = Some(1), graceMs = Some(0))).collect().head
    assert(collected.getAs[Int]("parts_deleted") > 0)
    assert(t.vacuum(0).collect().head.getAs[Int]("parts_deleted") === 0)
    assert(t.vacuum().schema === t.gc().schema)
    assert(inEveryMode("SELECT * FROM persist.life")._1 === rows(sql("SELECT * FROM oracle.life")))
  }
}
