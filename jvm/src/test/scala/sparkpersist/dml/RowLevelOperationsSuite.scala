package sparkpersist.dml

import org.apache.spark.SparkConf

import sparkpersist.catalyst.FilterMergeTarget
import sparkpersist.{PersistConf, PersistSparkSession}
import sparkpersist.scan.ScanReports

/**
 * DELETE, UPDATE and MERGE INTO on shards, each statement run on a shard and on an oracle: Spark's
 * own in-memory table of row-level operations (copy-on-write, from Spark's test jar), which holds
 * the same rows. After every statement both hold the same rows (duplicates counted), read in every
 * pushdown mode.
 */
class RowLevelOperationsSuite extends PersistSparkSession {

  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.catalog.oracle", "org.apache.spark.sql.connector.catalog.InMemoryRowLevelOperationTableCatalog")

  private val Columns = "id INT, bal DOUBLE, tag STRING"

  /** Runs `statement` (over `{t}`) on the shard and the oracle; both then hold the same rows. */
  private def both(table: String, statement: String): Unit = {
    // The in-memory table's own metadata-only delete fails on unpartitioned tables: row by row it is.
    withSQLConf("spark.sql.optimizer.excludedRules" ->
        "org.apache.spark.sql.execution.datasources.v2.OptimizeMetadataOnlyDeleteFromTable") {
      sql(statement.replace("{t}", s"oracle.$table"))
    }
    sql(statement.replace("{t}", s"persist.$table"))
    val expected = sql(s"SELECT * FROM oracle.$table").collect().map(_.toString).toSeq.sorted
    val (rows, _) = inEveryMode(s"SELECT * FROM persist.$table")
    assert(rows === expected, statement)
  }

  private def create(table: String): Unit = {
    sql(s"CREATE TABLE oracle.$table ($Columns)")
    sql(s"CREATE TABLE persist.$table ($Columns)")
    both(table, "INSERT INTO {t} VALUES (1, 10.0, 'a'), (2, 20.0, 'b'), (2, 20.0, 'b'), (3, NULL, NULL), " +
      "(NULL, 5.0, 'n'), (4, 40.0, 'd')")
  }

  test("DELETE retracts every copy of every row the condition holds on") {
    create("del")
    both("del", "DELETE FROM {t} WHERE id = 2")
    both("del", "DELETE FROM {t} WHERE bal > 30")
    both("del", "DELETE FROM {t} WHERE id IS NULL OR tag = 'zzz'")
    assert(store.open("del").state.batches.size === 4)
  }

  test("UPDATE retracts the old rows and inserts the new ones") {
    create("upd")
    both("upd", "UPDATE {t} SET bal = bal + 1, tag = upper(tag) WHERE id <= 2")
    both("upd", "UPDATE {t} SET bal = 0.0 WHERE bal IS NULL")
    both("upd", "UPDATE {t} SET id = id * 10")
  }

  test("MERGE INTO with every kind of clause") {
    create("mrg")
    import testImplicits._
    Seq((1, 11.0, "u"), (2, -1.0, "d"), (5, 50.0, "i"), (6, 60.0, "skip"))
      .toDF("id", "bal", "tag").createOrReplaceTempView("src")
    both("mrg",
      """MERGE INTO {t} t USING src s ON t.id = s.id
        |WHEN MATCHED AND s.tag = 'd' THEN DELETE
        |WHEN MATCHED THEN UPDATE SET t.bal = s.bal, t.tag = s.tag
        |WHEN NOT MATCHED AND s.tag <> 'skip' THEN INSERT *
        |WHEN NOT MATCHED BY SOURCE AND t.bal > 30 THEN UPDATE SET t.tag = 'stale'
        |WHEN NOT MATCHED BY SOURCE AND t.id IS NULL THEN DELETE""".stripMargin)
    val reports = ScanReports.last(spark)
    assert(reports.nonEmpty)
  }

  test("a small MERGE source filters the target by its keys before the join, where the join drops unmatched target rows") {
    create("mkey")
    import testImplicits._
    Seq[(Integer, Double, String)]((1, 11.0, "u"), (2, -1.0, "b"), (null, 7.0, "n"), (8, 80.0, "i"))
      .toDF("id", "bal", "tag").createOrReplaceTempView("ksrc")
    val upsert = "MERGE INTO {t} t USING ksrc s ON t.id = s.id AND t.tag <> s.tag " +
      "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    def plan(statement: String): String = sql("EXPLAIN " + statement.replace("{t}", "persist.mkey")).collect().head.getString(0)
    assert(plan(upsert).contains("LeftSemi") && plan(upsert).contains(FilterMergeTarget.KeyName), plan(upsert))
    both("mkey", upsert)
    val matchedOnly = "MERGE INTO {t} t USING ksrc s ON s.id = t.id WHEN MATCHED THEN DELETE"
    assert(plan(matchedOnly).contains(FilterMergeTarget.KeyName))
    both("mkey", matchedOnly)
    // Kept by the join: unmatched target rows, with NOT MATCHED BY SOURCE; a source too large to broadcast.
    val bySource = "MERGE INTO {t} t USING ksrc s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN UPDATE SET bal = 0.0"
    assert(!plan(bySource).contains(FilterMergeTarget.KeyName))
    both("mkey", bySource)
    withSQLConf("spark.sql.autoBroadcastJoinThreshold" -> "-1") {
      assert(!plan(upsert).contains(FilterMergeTarget.KeyName))
    }
  }

  test("DataFrame.mergeInto runs the same MERGE") {
    import org.apache.spark.sql.functions.{col, expr}
    import testImplicits._
    create("dfm")
    Seq((1, 11.0, "u"), (2, -1.0, "d"), (9, 90.0, "i")).toDF("id", "bal", "tag").createOrReplaceTempView("dfsrc")
    sql("MERGE INTO oracle.dfm t USING dfsrc s ON t.id = s.id WHEN MATCHED AND s.tag = 'd' THEN DELETE " +
      "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    spark.table("dfsrc").as("s").mergeInto("persist.dfm", expr("persist.dfm.id = s.id"))
      .whenMatched(col("s.tag") === "d").delete()
      .whenMatched().updateAll()
      .whenNotMatched().insertAll()
      .merge()
    assert(shardRows("dfm") === sql("SELECT * FROM oracle.dfm").collect().map(_.toString).toSeq.sorted)
  }

  /** The rows of `persist.<table>` in every mode, as of `asOf` when given. */
  private def shardRows(table: String, asOf: Option[Long] = None): Seq[String] =
    withSQLConf(asOf.map(t => PersistConf.AsOf.key -> t.toString).toSeq: _*) {
      inEveryMode(s"SELECT * FROM persist.$table")._1
    }

  private def latest(table: String): Long = store.open(table).state.upper - 1

  test("INSERT OVERWRITE, TRUNCATE and DELETE without a condition retract; history stays readable") {
    create("ow")
    val before = shardRows("ow")
    val beforeAt = latest("ow")
    sql("INSERT OVERWRITE persist.ow VALUES (7, 7.0, 'seven'), (7, 7.0, 'seven')")
    assert(shardRows("ow") === Seq("[7,7.0,seven]", "[7,7.0,seven]"))
    assert(shardRows("ow", Some(beforeAt)) === before)
    val state = store.open("ow").state
    assert(state.batches.last.runs.flatMap(_.parts).exists(_.hasRetractions))
    sql("TRUNCATE TABLE persist.ow")
    assert(shardRows("ow").isEmpty)
    sql("INSERT INTO persist.ow VALUES (8, 8.0, 'eight')")
    sql("DELETE FROM persist.ow")
    assert(shardRows("ow").isEmpty)
    assert(shardRows("ow", Some(beforeAt)) === before)
    // An overwrite of an empty shard with no rows commits nothing.
    val upper = store.open("ow").state.upper
    sql("TRUNCATE TABLE persist.ow")
    assert(store.open("ow").state.upper === upper)
  }

  test("DataFrameWriterV2 overwrite(condition) replaces the rows the condition holds on; overwritePartitions all") {
    import org.apache.spark.sql.functions.col
    import testImplicits._
    create("dfw")
    val before = sql("SELECT * FROM persist.dfw")
    val expected = before.where(!org.apache.spark.sql.functions.coalesce(col("id") <= 2, org.apache.spark.sql.functions.lit(false)))
      .collect().map(_.toString).toSeq ++ Seq("[9,9.0,nine]")
    Seq((9, 9.0, "nine")).toDF("id", "bal", "tag").writeTo("persist.dfw").overwrite(col("id") <= 2)
    assert(shardRows("dfw") === expected.sorted)
    Seq((10, 1.0, "ten")).toDF("id", "bal", "tag").writeTo("persist.dfw").overwritePartitions()
    assert(shardRows("dfw") === Seq("[10,1.0,ten]"))
    val e = intercept[IllegalArgumentException] {
      Seq((11, 1.0, "x")).toDF("id", "bal", "tag").writeTo("persist.dfw").option("time_col", "id").overwrite(col("id") > 0)
    }
    assert(e.getMessage.contains("time_col"))
  }

  test("CREATE OR REPLACE TABLE AS SELECT keeps the shard and its history; other columns are refused") {
    create("rep")
    val before = shardRows("rep")
    val beforeAt = latest("rep")
    sql("CREATE OR REPLACE TABLE persist.rep AS SELECT 'r' AS tag, 1.0D AS bal, 5 AS id")
    assert(shardRows("rep") === Seq("[5,1.0,r]"))
    assert(shardRows("rep", Some(beforeAt)) === before)
    val e = intercept[IllegalArgumentException] {
      sql("CREATE OR REPLACE TABLE persist.rep AS SELECT 1 AS other")
    }
    assert(e.getMessage.contains("the query's columns (other) are not the shard's (id, bal, tag)"), e.getMessage)
  }

  /** Shard `table` (day, n) ordered by day, of four batches of one day each: one part per day, 10 rows each. */
  private def createDays(table: String): Unit = {
    sql(s"CREATE TABLE persist.$table (day INT, n BIGINT) TBLPROPERTIES ('order_by' = 'day')")
    (1 to 4).foreach(d => sql(s"INSERT INTO persist.$table SELECT /*+ COALESCE(1) */ $d, id FROM range(10)"))
  }

  /** A shard before a statement: its rows (every mode), latest time and part files. */
  private final case class Before(rows: Seq[String], asOf: Long, files: Set[java.io.File])

  private object Before {
    def apply(table: String): Before = Before(shardRows(table), latest(table), partFiles(table).toSet)
  }

  test("the target's scan prunes with the statement's condition") {
    // One part per day; each statement's batch writes one part per day it changes.
    createDays("days")
    for ((statement, kept) <- Seq(
        "DELETE FROM persist.days WHERE day = 2 AND n < 5" -> 1,
        "UPDATE persist.days SET n = n + 100 WHERE day >= 3" -> 2,
        "MERGE INTO persist.days t USING (SELECT 4 AS day, 107L AS n) s ON t.day = s.day AND t.n = s.n AND t.day = 4 " +
          "WHEN MATCHED THEN DELETE" -> 1)) { // the part the UPDATE wrote for day 4 (n 0-9 retracted, 100-109 inserted)
      sql(statement)
      val reports = ScanReports.last(spark).filter(_.shard == "days")
      assert(reports.map(_.metrics.partsKept) === Seq(kept), statement)
    }
    assert(sql("SELECT day, count(*), sum(n) FROM persist.days GROUP BY day ORDER BY day").collect().map(_.toString).toSeq ===
      Seq("[1,10,45]", "[2,5,35]", "[3,10,1045]", "[4,9,938]"))
    // The SQL form of the scan reports (for Spark Connect and the Thrift server) says the same.
    val last = sql("CALL persist.system.last_scans()").collect()
    assert(last.map(r => (r.getAs[String]("shard"), r.getAs[Long]("parts_total"), r.getAs[Long]("parts_read"))).toSeq ===
      Seq(("days", 8L, 8L)))
  }

  test("a DELETE that decides every part retracts whole parts by reference: no row read, no file written") {
    createDays("wp")
    val Before(before, beforeAt, files) = Before("wp")
    val statement = "DELETE FROM persist.wp WHERE day <= 2"
    assert(sql(s"EXPLAIN $statement").collect().head.getString(0).contains("DeleteWholeParts 'wp': 2 parts retracted whole"))
    sql(statement)
    assert(partFiles("wp").toSet === files, "a whole-part DELETE writes no file")
    val batch = store.open("wp").state.batches.last
    assert(batch.parts.toSeq.map(_.key.endsWith("#negated")) === Seq(true, true))
    assert(shardRows("wp") === before.filter(r => r.startsWith("[3,") || r.startsWith("[4,")))
    assert(shardRows("wp", Some(beforeAt)) === before)
    assert(sql(s"SELECT count(*), min(diff), max(diff) FROM persist.wp.updates WHERE time = ${batch.upper - 1}")
      .collect().head.toSeq === Seq(20L, -1L, -1L))
    // A condition some part straddles reads rows (and writes their retractions).
    sql("DELETE FROM persist.wp WHERE day = 3 AND n < 5")
    assert(partFiles("wp").size > files.size, "a DELETE that reads rows writes their retractions")
    val expected = before.filter(r => r.startsWith("[4,") || (r.startsWith("[3,") && r.stripPrefix("[3,").dropRight(1).toLong >= 5))
    assert(shardRows("wp") === expected)
    // The batch whose parts are negated cannot be dropped before the negations.
    val first = store.open("wp").state.batches.head.id
    val refused = intercept[IllegalArgumentException](sql(s"CALL persist.system.drop_batch('wp', '$first')"))
    assert(refused.getMessage.contains("retracts some of its parts whole"), refused.getMessage)
    // Compaction consolidates rows and their negations away; GC then deletes the files of days 1 and 2.
    sparkpersist.compact.Lifecycle.compact(spark, "wp", sparkpersist.compact.CompactOptions(retentionMs = Some(0L)))
    assert(shardRows("wp") === expected)
    assert(store.open("wp").state.parts.forall(p => !p.negated))
    sparkpersist.compact.Lifecycle.gc(spark, "wp", sparkpersist.compact.GcOptions(keepVersions = Some(1), graceMs = Some(0L)))
    assert(shardRows("wp") === expected)
  }

  test("TRUNCATE of a shard of insert-only parts negates every part and writes no file") {
    sql("CREATE TABLE persist.tr (id INT)")
    (1 to 3).foreach(i => sql(s"INSERT INTO persist.tr VALUES ($i), (${i * 10})"))
    val Before(before, beforeAt, files) = Before("tr")
    sql("TRUNCATE TABLE persist.tr")
    assert(shardRows("tr").isEmpty && partFiles("tr").toSet === files)
    assert(store.open("tr").state.batches.last.parts.forall(_.negated))
    assert(shardRows("tr", Some(beforeAt)) === before)
  }

  test("updates with their own time and diff go to the updates table, from SQL and DataFrameWriterV2") {
    import testImplicits._
    create("upd8")
    val upper = store.open("upd8").state.upper
    sql(s"INSERT INTO persist.upd8.updates VALUES (1, 10.0, 'a', ${upper + 5}, -1), (1, 12.0, 'a', ${upper + 5}, 1)")
    Seq((4, 40.0, "d", upper + 9, -1L)).toDF("id", "bal", "tag", "time", "diff").writeTo("persist.upd8.updates").append()
    assert(shardRows("upd8") === Seq("[1,12.0,a]", "[2,20.0,b]", "[2,20.0,b]", "[3,null,null]", "[null,5.0,n]"))
    assert(store.open("upd8").state.upper === upper + 10)
    assert(shardRows("upd8", Some(upper + 5)) === Seq("[1,12.0,a]", "[2,20.0,b]", "[2,20.0,b]", "[3,null,null]",
      "[4,40.0,d]", "[null,5.0,n]"))
    val below = intercept[Exception](sql(s"INSERT INTO persist.upd8.updates VALUES (9, 1.0, 'z', ${upper - 1}, 1)"))
    assert(below.getMessage.contains("every time must be >= the shard's upper") &&
      below.getMessage.contains("the 'time' column"), below.getMessage)
    val option = intercept[IllegalArgumentException] {
      Seq((5, 1.0, "e")).toDF("id", "bal", "tag").writeTo("persist.upd8").option("diff_col", "d").append()
    }
    assert(option.getMessage.contains("persist.<shard>.updates"))
    // Row-level operations and truncation take the snapshot table only.
    intercept[Exception](sql("DELETE FROM persist.upd8.updates WHERE id = 1"))
  }

  /** The files under the shard's parts directory. */
  private def partFiles(table: String): Seq[java.io.File] = {
    def walk(f: java.io.File): Seq[java.io.File] = if (f.isDirectory) f.listFiles().toSeq.flatMap(walk) else Seq(f)
    walk(new java.io.File(root, s"$table/parts"))
  }
}
