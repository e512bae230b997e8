package sparkpersist.dml

import org.apache.spark.SparkConf

import sparkpersist.PersistSparkSession
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
}
