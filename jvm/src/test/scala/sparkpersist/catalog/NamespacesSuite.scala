package sparkpersist.catalog

import java.io.File

import org.apache.spark.sql.{AnalysisException, QueryTest, Row}
import org.apache.spark.sql.catalyst.analysis.{NamespaceAlreadyExistsException, NoSuchNamespaceException}

import sparkpersist.PersistSparkSession

/**
 * Namespaces of the persist catalog: nested directories under the root holding shards, the names
 * `persist.<namespace>.<shard>` and their metadata views, and the rule that reads `persist.a.b`.
 */
class NamespacesSuite extends QueryTest with PersistSparkSession {

  private def names(query: String): Seq[String] = sql(query).collect().map(_.getString(0)).toSeq

  test("CREATE, SHOW, DESCRIBE, USE and DROP NAMESPACE; nested namespaces are directories under the root") {
    sql("CREATE NAMESPACE persist.sales COMMENT 'orders and returns' WITH DBPROPERTIES ('team' = 'emea')")
    sql("CREATE NAMESPACE persist.sales.eu")
    try {
      assert(names("SHOW NAMESPACES IN persist") === Seq("sales"))
      assert(names("SHOW NAMESPACES IN persist.sales") === Seq("sales.eu"))
      assert(new File(root, "sales/eu/_namespace.properties").isFile)
      val described = sql("DESCRIBE NAMESPACE EXTENDED persist.sales").collect().map(r => r.getString(0) -> r.getString(1)).toMap
      assert(described("Comment") === "orders and returns")
      assert(described("Properties").contains("(team,emea)"))
      intercept[NamespaceAlreadyExistsException](sql("CREATE NAMESPACE persist.sales"))
      sql("CREATE NAMESPACE IF NOT EXISTS persist.sales")
      val missingParent = intercept[NoSuchNamespaceException](sql("CREATE NAMESPACE persist.nope.child"))
      assert(missingParent.getMessage.contains("`nope`"))
      assert(intercept[NoSuchNamespaceException](sql("SHOW TABLES IN persist.nope")).getMessage.contains("`nope`"))

      sql("CREATE TABLE persist.sales.orders (id BIGINT, amount DOUBLE)")
      sql("CREATE TABLE persist.sales.eu.orders (id BIGINT)")
      sql("INSERT INTO persist.sales.orders VALUES (1, 2.5), (2, 4.0)")
      sql("INSERT INTO persist.sales.eu.orders VALUES (7)")
      assert(new File(root, "sales/orders/state").isDirectory && new File(root, "sales/eu/orders/state").isDirectory)
      assert(sql("SHOW TABLES IN persist.sales").collect().map(r => r.getString(0) -> r.getString(1)).toSeq ===
        Seq("sales" -> "orders"))
      assert(names("SHOW TABLES IN persist").isEmpty)
      checkAnswer(sql("SELECT id, amount FROM persist.sales.orders"), Seq(Row(1L, 2.5), Row(2L, 4.0)))
      checkAnswer(sql("SELECT id FROM persist.sales.eu.orders"), Seq(Row(7L)))
      checkAnswer(sql("SELECT sum(row_count) FROM persist.sales.orders.parts"), Row(2L))
      checkAnswer(sql("SELECT id, diff FROM persist.sales.orders.updates"), Seq(Row(1L, 1L), Row(2L, 1L)))
      checkAnswer(sql("SELECT count(*) FROM persist.sales.eu.orders.batches"), Row(1L))

      sql("USE persist.sales")
      try checkAnswer(sql("SELECT id FROM orders WHERE amount > 3"), Row(2L))
      finally sql("USE spark_catalog.default")

      // The procedures and the programmatic API take the namespaced name.
      sql("INSERT INTO persist.sales.orders VALUES (3, 1.0)")
      assert(SessionShards.store(spark).open("sales.orders").state.batches.size === 2)
      sql("CALL persist.system.compact(shard => 'sales.orders')")
      checkAnswer(sql("SELECT id FROM persist.sales.orders"), Seq(Row(1L), Row(2L), Row(3L)))
      val missing = intercept[java.util.NoSuchElementException](sql("CALL persist.system.compact(shard => 'sales.nope')"))
      assert(missing.getMessage.startsWith("[PERSIST_SHARD_NOT_FOUND] Shard 'sales.nope' does not exist under ") &&
        missing.getMessage.contains("(existing shards: sales.orders)"))

      val restrict = intercept[AnalysisException](sql("DROP NAMESPACE persist.sales"))
      assert(restrict.getCondition === "SCHEMA_NOT_EMPTY" && restrict.getMessage.contains("DROP SCHEMA ... CASCADE"))
      checkAnswer(sql("SELECT count(*) FROM persist.sales.orders"), Row(3L))
      sql("DROP NAMESPACE persist.sales CASCADE")
      assert(names("SHOW NAMESPACES IN persist").isEmpty)
      assert(root.list().toSeq.filterNot(_.startsWith(".")) === Nil)
      intercept[AnalysisException](sql("SELECT * FROM persist.sales.orders"))
    } finally sql("DROP NAMESPACE IF EXISTS persist.sales CASCADE")
  }

  test("persist.a.b is shard a's view b when a is a shard, else shard b in namespace a; a name is a shard's or a namespace's") {
    sql("CREATE TABLE persist.a (id BIGINT)")
    sql("CREATE NAMESPACE persist.b")
    try {
      sql("INSERT INTO persist.a VALUES (1)")
      // a is a shard: a.parts is its parts view.
      assert(sql("SELECT * FROM persist.a.parts").columns.contains("row_count"))
      // b is a namespace: b.parts is the shard 'parts' in it.
      sql("CREATE TABLE persist.b.parts (x STRING)")
      sql("INSERT INTO persist.b.parts VALUES ('in b')")
      checkAnswer(sql("SELECT * FROM persist.b.parts"), Row("in b"))
      checkAnswer(sql("SELECT count(*) FROM persist.b.parts.parts"), Row(1L))
      val shardFirst = intercept[IllegalArgumentException](sql("CREATE NAMESPACE persist.a"))
      assert(shardFirst.getMessage.startsWith("[PERSIST_NAME_TAKEN.BY_SHARD] Cannot create namespace 'a': a shard of that name " +
        "exists under "))
      val namespaceFirst = intercept[IllegalArgumentException](sql("CREATE TABLE persist.b (id BIGINT)"))
      assert(namespaceFirst.getMessage.startsWith("[PERSIST_NAME_TAKEN.BY_NAMESPACE] Cannot create shard 'b': a namespace of that name exists under "))
      // A table in a namespace that does not exist.
      intercept[NoSuchNamespaceException](sql("CREATE TABLE persist.c.t (id BIGINT)"))
      val notAView = intercept[AnalysisException](sql("SELECT * FROM persist.a.nope"))
      assert(notAView.getMessage.contains("persist`.`a`.`nope"))
    } finally {
      sql("DROP TABLE IF EXISTS persist.a")
      sql("DROP NAMESPACE IF EXISTS persist.b CASCADE")
    }
  }

  test("ALTER TABLE RENAME moves a shard within and across namespaces on local disk; its data and views follow") {
    sql("CREATE NAMESPACE persist.archive")
    sql("CREATE TABLE persist.h (id BIGINT)")
    try {
      sql("INSERT INTO persist.h VALUES (1), (2)")
      spark.table("persist.h").collect() // the catalog keeps the shard open: a rename must forget it
      sql("ALTER TABLE persist.h RENAME TO persist.h2")
      checkAnswer(sql("SELECT id FROM persist.h2"), Seq(Row(1L), Row(2L)))
      intercept[AnalysisException](sql("SELECT * FROM persist.h"))
      sql("ALTER TABLE persist.h2 RENAME TO archive.h3")
      checkAnswer(sql("SELECT id FROM persist.archive.h3"), Seq(Row(1L), Row(2L)))
      checkAnswer(sql("SELECT count(*) FROM persist.archive.h3.batches"), Row(1L))
      sql("INSERT INTO persist.archive.h3 VALUES (3)")
      checkAnswer(sql("SELECT count(*) FROM persist.archive.h3"), Row(3L))
      sql("CREATE TABLE persist.taken (id BIGINT)")
      intercept[AnalysisException](sql("ALTER TABLE persist.archive.h3 RENAME TO persist.taken"))
      intercept[AnalysisException](sql("ALTER TABLE persist.missing RENAME TO persist.other"))
      checkAnswer(sql("SELECT count(*) FROM persist.archive.h3"), Row(3L))
    } finally {
      sql("DROP TABLE IF EXISTS persist.taken")
      sql("DROP NAMESPACE IF EXISTS persist.archive CASCADE")
      sql("DROP TABLE IF EXISTS persist.h")
      sql("DROP TABLE IF EXISTS persist.h2")
    }
  }

  test("a two-part name of no shard is TABLE_OR_VIEW_NOT_FOUND, not a query on files of the data source persist") {
    val queries: Seq[() => Any] = Seq(() => sql("SELECT * FROM persist.nope"), () => sql("SELECT * FROM persist.`/no/shard`"),
      () => spark.table("persist.nope"), () => spark.readStream.table("persist.nope"),
      () => sql("SELECT 1 WHERE 1 IN (SELECT 1 FROM persist.nope)"), () => sql("SELECT * FROM persist.nope VERSION AS OF 1"))
    queries.zipWithIndex.foreach { case (query, i) =>
      val e = intercept[AnalysisException](query())
      assert(e.getCondition === "TABLE_OR_VIEW_NOT_FOUND" && e.getMessage.contains("`persist`."), s"query $i: ${e.getMessage}")
    }
  }
}
