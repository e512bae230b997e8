package sparkpersist.metastore

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, QueryTest, Row}
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.catalog.{CatalogTable, CatalogTableType}
import org.apache.spark.sql.connector.catalog.Identifier

import sparkpersist.catalog.PersistTable

/**
 * The session catalog's behaviour, whichever metastore keeps its entries (Hive's, with an embedded
 * Derby database, or Spark's in-memory catalog): persist tables in databases beside Spark's own
 * tables, each statement's rows compared with plain Spark over a Parquet copy of the same rows
 * (read without Parquet filter pushdown), made by CTAS at each step.
 */
trait SessionCatalogBehaviour { self: QueryTest =>

  /** Spark's settings that make [[PersistSessionCatalog]] the session catalog, the extension installed. */
  protected def sessionCatalogConf: Map[String, String] = Map(
    "spark.sql.extensions" -> classOf[sparkpersist.PersistExtensions].getName,
    "spark.sql.catalog.spark_catalog" -> classOf[PersistSessionCatalog].getName,
    "spark.sql.session.timeZone" -> "UTC")

  private def sessionCatalog: PersistSessionCatalog =
    spark.sessionState.catalogManager.catalog("spark_catalog").asInstanceOf[PersistSessionCatalog]

  private def entry(db: String, table: String): CatalogTable =
    spark.sessionState.catalog.getTableMetadata(TableIdentifier(table, Some(db)))

  /** The rows of `table` of plain Spark's Parquet reader. */
  private def parquet(table: String): DataFrame = {
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    try spark.createDataFrame(spark.table(table).collect().toSeq.asJava, spark.table(table).schema)
    finally spark.conf.unset("spark.sql.parquet.filterPushdown")
  }

  private def sameRows(persist: String, oracle: String): Unit = checkAnswer(spark.table(persist), parquet(oracle))

  test("CREATE TABLE db.t USING persist: an entry of provider persist with its shard at the default location") {
    spark.sql("CREATE DATABASE IF NOT EXISTS sales")
    spark.sql("CREATE TABLE sales.orders (id BIGINT, customer STRING, amount DOUBLE) USING persist " +
      "TBLPROPERTIES ('order_by' = 'id') COMMENT 'orders of the day'")
    val e = entry("sales", "orders")
    assert(e.provider === Some("persist"))
    assert(e.tableType === CatalogTableType.MANAGED)
    assert(e.schema.map(f => (f.name, f.dataType.sql)) === Seq(("id", "BIGINT"), ("customer", "STRING"), ("amount", "DOUBLE")))
    assert(e.properties.get("order_by") === Some("id"))
    assert(e.comment === Some("orders of the day"))
    assert(e.location === spark.sessionState.catalog.defaultTablePath(TableIdentifier("orders", Some("sales"))))
    assert(new File(new File(e.location), "state").isDirectory, "the shard lives at the table's location")
    val table = sessionCatalog.loadTable(Identifier.of(Array("sales"), "orders"))
    assert(table.isInstanceOf[PersistTable] && table.name() === "spark_catalog.sales.orders")
  }

  test("INSERT, DELETE, UPDATE, MERGE and INSERT OVERWRITE read back as plain Spark over Parquet; parquet tables stay Spark's") {
    spark.sql("CREATE DATABASE IF NOT EXISTS dml")
    spark.sql("CREATE TABLE dml.t (id BIGINT, kind STRING, amount DOUBLE) USING persist")
    spark.sql("CREATE TABLE dml.o0 (id BIGINT, kind STRING, amount DOUBLE) USING parquet")
    assert(entry("dml", "o0").provider === Some("parquet"))
    assert(!sessionCatalog.loadTable(Identifier.of(Array("dml"), "o0")).isInstanceOf[PersistTable])
    val rows = "(1, 'a', 10.0), (2, 'b', 20.0), (3, 'a', 30.0), (4, 'c', NULL), (5, 'b', 50.0)"
    spark.sql(s"INSERT INTO dml.t VALUES $rows")
    spark.sql(s"INSERT INTO dml.o0 VALUES $rows")
    sameRows("dml.t", "dml.o0")

    spark.sql("DELETE FROM dml.t WHERE kind = 'c' OR amount > 40")
    spark.sql("CREATE TABLE dml.o1 USING parquet AS SELECT * FROM dml.o0 WHERE NOT (kind = 'c' OR amount > 40) " +
      "OR (kind = 'c' OR amount > 40) IS NULL")
    sameRows("dml.t", "dml.o1")

    spark.sql("UPDATE dml.t SET amount = amount * 2 WHERE kind = 'a'")
    spark.sql("CREATE TABLE dml.o2 USING parquet AS SELECT id, kind, " +
      "CASE WHEN kind = 'a' THEN amount * 2 ELSE amount END AS amount FROM dml.o1")
    sameRows("dml.t", "dml.o2")

    spark.sql("CREATE TABLE dml.changes USING parquet AS SELECT * FROM VALUES (2, 'b', 21.0), (7, 'd', 70.0) AS c(id, kind, amount)")
    spark.sql("MERGE INTO dml.t USING dml.changes c ON dml.t.id = c.id " +
      "WHEN MATCHED THEN UPDATE SET amount = c.amount WHEN NOT MATCHED THEN INSERT *")
    spark.sql("CREATE TABLE dml.o3 USING parquet AS SELECT o.id, o.kind, coalesce(c.amount, o.amount) AS amount " +
      "FROM dml.o2 o LEFT JOIN dml.changes c ON o.id = c.id UNION ALL " +
      "SELECT * FROM dml.changes c WHERE c.id NOT IN (SELECT id FROM dml.o2)")
    sameRows("dml.t", "dml.o3")

    spark.sql("INSERT OVERWRITE dml.t SELECT id + 100, kind, amount FROM dml.o3 WHERE kind <> 'd'")
    spark.sql("CREATE TABLE dml.o4 USING parquet AS SELECT id + 100 AS id, kind, amount FROM dml.o3 WHERE kind <> 'd'")
    sameRows("dml.t", "dml.o4")
    assert(spark.sql("SELECT count(*) FROM dml.t").head().getLong(0) === 3L)
  }

  test("CTAS and CREATE OR REPLACE TABLE AS SELECT") {
    spark.sql("CREATE DATABASE IF NOT EXISTS ctas")
    spark.sql("CREATE TABLE ctas.src USING parquet AS SELECT id, CAST(id % 3 AS STRING) AS k FROM range(10)")
    spark.sql("CREATE TABLE ctas.t USING persist TBLPROPERTIES ('order_by' = 'k') AS SELECT * FROM ctas.src WHERE id < 6")
    checkAnswer(spark.table("ctas.t"), parquet("ctas.src").where("id < 6"))
    assert(spark.sql("SHOW TBLPROPERTIES ctas.t ('order_by')").head().getString(1) === "k")
    spark.sql("CREATE OR REPLACE TABLE ctas.t USING persist AS SELECT * FROM ctas.src WHERE id >= 6")
    checkAnswer(spark.table("ctas.t"), parquet("ctas.src").where("id >= 6"))
    assert(entry("ctas", "t").provider === Some("persist"))
  }

  test("SHOW TABLES, DESCRIBE TABLE EXTENDED and SHOW TBLPROPERTIES") {
    spark.sql("CREATE DATABASE IF NOT EXISTS shown")
    spark.sql("CREATE TABLE shown.p (id BIGINT COMMENT 'the key', v STRING) USING persist " +
      "TBLPROPERTIES ('order_by' = 'id', 'sparkpersist.indexColumns' = 'v')")
    spark.sql("CREATE TABLE shown.q (id BIGINT) USING parquet")
    checkAnswer(spark.sql("SHOW TABLES IN shown").select("tableName"), Seq(Row("p"), Row("q")))
    val described = spark.sql("DESCRIBE TABLE EXTENDED shown.p").collect().map(r => r.getString(0) -> r.getString(1)).toMap
    assert(described("id") === "bigint" && described("v") === "string")
    assert(described("Provider") === "persist")
    assert(described("Location") === entry("shown", "p").location.toString)
    val properties = spark.sql("SHOW TBLPROPERTIES shown.p").collect().map(r => r.getString(0) -> r.getString(1)).toMap
    assert(properties("order_by") === "id")
    assert(properties("sparkpersist.indexColumns") === "v")
    assert(properties("upper") === "0")
  }

  test("ALTER TABLE changes the shard and the metastore entry; a refused change changes neither") {
    spark.sql("CREATE DATABASE IF NOT EXISTS altered")
    spark.sql("CREATE TABLE altered.t (id BIGINT, v STRING) USING persist")
    spark.sql("INSERT INTO altered.t VALUES (1, 'a')")
    spark.sql("ALTER TABLE altered.t ADD COLUMN n INT")
    spark.sql("ALTER TABLE altered.t SET TBLPROPERTIES ('sparkpersist.indexColumns' = 'v')")
    spark.sql("INSERT INTO altered.t VALUES (2, 'b', 7)")
    checkAnswer(spark.table("altered.t"), Seq(Row(1L, "a", null), Row(2L, "b", 7)))
    val e = entry("altered", "t")
    assert(e.schema.map(_.name) === Seq("id", "v", "n"))
    assert(e.properties.get("sparkpersist.indexColumns") === Some("v"))
    val refused = intercept[Exception](spark.sql("ALTER TABLE altered.t SET TBLPROPERTIES ('color' = 'blue')"))
    assert(refused.getMessage.contains("Cannot alter table spark_catalog.altered.t"), refused.getMessage)
    assert(!entry("altered", "t").properties.contains("color"))
  }

  test("time travel and the metadata views db.t.updates, db.t.parts, db.t.batches") {
    spark.sql("CREATE DATABASE IF NOT EXISTS travel")
    spark.sql("CREATE TABLE travel.t (id BIGINT) USING persist")
    spark.sql("INSERT INTO travel.t VALUES (1), (2)")
    spark.sql("INSERT INTO travel.t VALUES (3)")
    checkAnswer(spark.sql("SELECT * FROM travel.t VERSION AS OF 1"), Seq(Row(1L), Row(2L)))
    checkAnswer(spark.sql("SELECT * FROM travel.t"), Seq(Row(1L), Row(2L), Row(3L)))
    checkAnswer(spark.sql("SELECT count(*), sum(row_count) FROM travel.t.batches"), Row(2L, 3L))
    checkAnswer(spark.sql("SELECT sum(row_count) FROM travel.t.parts"), Row(3L))
    checkAnswer(spark.sql("SELECT id, diff FROM travel.t.updates"), Seq(Row(1L, 1L), Row(2L, 1L), Row(3L, 1L)))
  }

  test("DROP of a managed table deletes its shard; of an external table keeps it, and a new table over it reads it") {
    spark.sql("CREATE DATABASE IF NOT EXISTS dropped")
    spark.sql("CREATE TABLE dropped.managed (id BIGINT) USING persist")
    spark.sql("INSERT INTO dropped.managed VALUES (1)")
    val managedDir = new File(entry("dropped", "managed").location)
    spark.sql("DROP TABLE dropped.managed")
    assert(!managedDir.exists())
    assert(!spark.catalog.tableExists("dropped.managed"))

    val dir = new File(Files.createTempDirectory("external").toFile, "events")
    spark.sql(s"CREATE TABLE dropped.ext (id BIGINT, v STRING) USING persist LOCATION '${dir.toURI}'")
    assert(entry("dropped", "ext").tableType === CatalogTableType.EXTERNAL)
    spark.sql("INSERT INTO dropped.ext VALUES (1, 'x'), (2, 'y')")
    spark.sql("DROP TABLE dropped.ext")
    assert(new File(dir, "state").isDirectory, "an external table's shard stays")
    spark.sql(s"CREATE TABLE dropped.again USING persist LOCATION '${dir.toURI}'")
    checkAnswer(spark.table("dropped.again"), Seq(Row(1L, "x"), Row(2L, "y")))
    assert(entry("dropped", "again").schema.map(_.name) === Seq("id", "v"))
    val other = intercept[IllegalArgumentException](
      spark.sql(s"CREATE TABLE dropped.other (id INT) USING persist LOCATION '${dir.toURI}'"))
    assert(other.getMessage.startsWith("[PERSIST_INVALID_SCHEMA] Cannot create table spark_catalog.dropped.other: its location holds a " +
      "persist shard already, with the columns id BIGINT,v STRING."), other.getMessage)
    assert(!spark.catalog.tableExists("dropped.other"))
  }

  test("RENAME of a managed table moves its shard with its directory") {
    spark.sql("CREATE DATABASE IF NOT EXISTS renamed")
    spark.sql("CREATE TABLE renamed.before (id BIGINT) USING persist")
    spark.sql("INSERT INTO renamed.before VALUES (1), (2)")
    val old = new File(entry("renamed", "before").location)
    spark.sql("ALTER TABLE renamed.before RENAME TO renamed.after")
    assert(!old.exists())
    assert(new File(new File(entry("renamed", "after").location), "state").isDirectory)
    spark.sql("INSERT INTO renamed.after VALUES (3)")
    checkAnswer(spark.table("renamed.after"), Seq(Row(1L), Row(2L), Row(3L)))
  }

  test("refused CREATEs leave no entry behind") {
    spark.sql("CREATE DATABASE IF NOT EXISTS refused")
    val property = intercept[IllegalArgumentException](
      spark.sql("CREATE TABLE refused.t (id BIGINT) USING persist TBLPROPERTIES ('colour' = 'red')"))
    assert(property.getMessage.startsWith("[PERSIST_INVALID_OPTION] Unsupported table properties for spark_catalog.refused.t: colour."))
    val partitioned = intercept[UnsupportedOperationException](
      spark.sql("CREATE TABLE refused.t (id BIGINT, d DATE) USING persist PARTITIONED BY (d)"))
    assert(partitioned.getMessage.startsWith("[PERSIST_UNSUPPORTED_OPERATION] Persist table spark_catalog.refused.t cannot be partitioned"))
    val foreign = Files.createTempDirectory("foreign").toFile
    Files.writeString(new File(foreign, "data.csv").toPath, "1\n")
    val occupied = intercept[IllegalArgumentException](
      spark.sql(s"CREATE TABLE refused.t (id BIGINT) USING persist LOCATION '${foreign.toURI}'"))
    assert(occupied.getMessage.contains("the directory holds other files. A persist table's directory holds its shard alone"))
    assert(!spark.catalog.tableExists("refused.t"))
    assert(new File(foreign, "data.csv").isFile)
  }

  test("an external table in an existing empty directory of any name, named with a trailing '/'") {
    spark.sql("CREATE DATABASE IF NOT EXISTS slashed")
    val dir = new File(Files.createTempDirectory("empty").toFile, "my-events.v2")
    assert(dir.mkdir())
    assert(dir.toURI.toString.endsWith("/"))
    spark.sql(s"CREATE TABLE slashed.t (id BIGINT) USING persist LOCATION '${dir.toURI}'")
    spark.sql("INSERT INTO slashed.t VALUES (7)")
    checkAnswer(spark.table("slashed.t"), Row(7L))
    assert(new File(dir, "state").isDirectory)
  }
}
