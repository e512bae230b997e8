package sparkpersist.catalog

import java.nio.file.Files

import org.apache.spark.SparkConf
import org.apache.spark.sql.{AnalysisException, Row}
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.test.SharedSparkSession
import org.apache.spark.sql.types._

import sparkpersist.PersistConf
import sparkpersist.plan.InvalidAsOf

class PersistCatalogSuite extends SharedSparkSession {

  private lazy val root = Files.createTempDirectory("persist-catalog").toFile

  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.catalog.persist", classOf[PersistCatalog].getName)
    .set("spark.sql.catalog.persist.root", root.toURI.toString)

  private def catalog: PersistCatalog =
    spark.sessionState.catalogManager.catalog("persist").asInstanceOf[PersistCatalog]

  private def withShard(ddl: String)(body: => Unit): Unit =
    try { sql(ddl); body } finally sql("DROP TABLE IF EXISTS persist.events")

  test("the catalog's former name, sparkpersist.source.PersistCatalog, still serves the same shards") {
    withShard("CREATE TABLE persist.events (id BIGINT, name STRING)") {
      sql("INSERT INTO persist.events VALUES (1, 'a'), (2, 'b')")
      spark.conf.set("spark.sql.catalog.former", "sparkpersist.source.PersistCatalog")
      spark.conf.set("spark.sql.catalog.former.root", root.toURI.toString)
      try {
        assert(spark.sessionState.catalogManager.catalog("former").isInstanceOf[PersistCatalog])
        assert(sql("SELECT id, name FROM former.events ORDER BY id").collect().toSeq === Seq(Row(1L, "a"), Row(2L, "b")))
      } finally {
        spark.conf.unset("spark.sql.catalog.former")
        spark.conf.unset("spark.sql.catalog.former.root")
      }
    }
  }

  test("CREATE TABLE makes a shard with its columns, order key and an empty snapshot") {
    withShard("CREATE TABLE persist.events (id BIGINT NOT NULL, name STRING COMMENT 'who', " +
      "at TIMESTAMP) TBLPROPERTIES (order_by = 'name, id')") {
      assert(spark.table("persist.events").schema === StructType(Seq(
        StructField("id", LongType, nullable = false),
        StructField("name", StringType).withComment("who"),
        StructField("at", TimestampType))))
      val table = catalog.loadTable(Identifier.of(Array.empty, "events"))
      assert(table.properties().get("order_by") === "name,id")
      assert(table.properties().get("upper") === "0")
      assert(sql("SELECT * FROM persist.events").collect().isEmpty)
      assert(spark.read.table("persist.events").count() === 0)
      assert(sql("SELECT * FROM persist.events.updates").schema.fieldNames.toSeq ===
        Seq("id", "name", "at", "time", "diff"))
      assert(sql("SELECT * FROM persist.events.updates").collect().isEmpty)
      assert(sql("SELECT * FROM persist.events.parts").collect().isEmpty)
      assert(sql("SHOW TABLES IN persist").collect().map(_.getString(1)).toSeq === Seq("events"))
      assert(catalog.listTables(Array("events")).map(_.name()).toSeq === Seq("updates", "parts", "batches", "history"))
    }
    assert(sql("SHOW TABLES IN persist").collect().isEmpty)
    assert(!catalog.tableExists(Identifier.of(Array.empty, "events")))
  }

  test("creating an existing shard fails; IF NOT EXISTS keeps it") {
    withShard("CREATE TABLE persist.events (id INT)") {
      val e = intercept[AnalysisException](sql("CREATE TABLE persist.events (x INT)"))
      assert(e.getCondition === "TABLE_OR_VIEW_ALREADY_EXISTS")
      sql("CREATE TABLE IF NOT EXISTS persist.events (x INT)")
      assert(spark.table("persist.events").schema.fieldNames.toSeq === Seq("id"))
    }
  }

  test("a missing shard is TABLE_OR_VIEW_NOT_FOUND, for every view") {
    for (name <- Seq("persist.nope.updates", "persist.nope.parts", "persist.nope.batches", "persist.ns.nope")) {
      val e = intercept[AnalysisException](sql(s"SELECT * FROM $name"))
      assert(e.getCondition === "TABLE_OR_VIEW_NOT_FOUND", name)
    }
    // This session has the catalog without the extension: Spark takes the two-part persist.nope for
    // a query on files of the data source `persist` (with the extension, NamespacesSuite).
    assert(intercept[AnalysisException](sql("SELECT * FROM persist.nope")).getCondition ===
      "UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY")
    intercept[NoSuchTableException](catalog.loadTable(Identifier.of(Array.empty, "nope")))
    assert(!catalog.dropTable(Identifier.of(Array.empty, "nope")))
  }

  test("names that are not a shard or one of its views are refused with the accepted shapes") {
    val e = intercept[IllegalArgumentException](catalog.loadTable(Identifier.of(Array("/data/t"), "journal")))
    assert(e.getMessage === "[PERSIST_INVALID_NAME.TABLE] Invalid name: 'persist./data/t.journal' is not a persist " +
      "table name. Use persist.<shard> (or persist.<namespace>.<shard>) for a shard's snapshot, persist.`<path or URI>` " +
      "for the shard at a location, and one more part for its metadata: .updates for its raw updates, .parts for its " +
      "parts, .batches for its batches, .history for its history. SQLSTATE: 42602")
    val deep = intercept[IllegalArgumentException](catalog.loadTable(Identifier.of(Array("a", "file:/b"), "c")))
    assert(deep.getMessage.startsWith("[PERSIST_INVALID_NAME.TABLE] Invalid name: 'persist.a.file:/b.c' is not a persist table name."))
    // Two names are a shard in a namespace unless the first is a shard (see NamespacesSuite).
    intercept[NoSuchTableException](catalog.loadTable(Identifier.of(Array("events"), "history")))
  }

  test("creation refuses partitioning, unknown properties, reserved and unknown order_by columns") {
    val partitioned = intercept[UnsupportedOperationException](
      sql("CREATE TABLE persist.events (id INT, day DATE) PARTITIONED BY (day)"))
    assert(partitioned.getMessage === "[PERSIST_UNSUPPORTED_OPERATION] Persist table persist.events cannot be partitioned: parts are " +
      "pruned by their statistics. Drop PARTITIONED BY; use CLUSTER BY (columns) to lay rows out by other columns than " +
      "time, or the 'order_by' table property to sort them. SQLSTATE: 0A000")
    val props = intercept[IllegalArgumentException](
      sql("CREATE TABLE persist.events (id INT) TBLPROPERTIES (sort = 'id')"))
    assert(props.getMessage === "[PERSIST_INVALID_OPTION] Unsupported table properties for persist.events: sort. The persist table " +
      "properties are 'order_by', 'sparkpersist.indexColumns' and 'sparkpersist.clusterBy' (comma-separated columns), " +
        "'sparkpersist.isolationLevel' and 'sparkpersist.iceberg'. SQLSTATE: 42K06")
    val reserved = intercept[IllegalArgumentException](sql("CREATE TABLE persist.events (time BIGINT)"))
    assert(reserved.getMessage.startsWith("[PERSIST_INVALID_NAME.RESERVED_COLUMN] Invalid name: column 'time' is reserved by sparkpersist"))
    val order = intercept[IllegalArgumentException](
      sql("CREATE TABLE persist.events (id INT) TBLPROPERTIES (order_by = 'nope')"))
    assert(order.getMessage === "[PERSIST_INVALID_SCHEMA] Cannot create table persist.events: " +
      "order_by column 'nope' is not a column of the shard (columns: id) SQLSTATE: 42K09")
    assert(!catalog.tableExists(Identifier.of(Array.empty, "events")))
  }

  test("views cannot be created, dropped, altered or renamed") {
    withShard("CREATE TABLE persist.events (id INT)") {
      val drop = intercept[UnsupportedOperationException](catalog.dropTable(Identifier.of(Array("events"), "parts")))
      assert(drop.getMessage === "[PERSIST_UNSUPPORTED_OPERATION] Cannot drop persist.events.parts: it is a view of shard 'events'. " +
        "drop persist.events instead. SQLSTATE: 0A000")
      val alter = intercept[UnsupportedOperationException](sql("ALTER TABLE persist.events.parts ADD COLUMN x INT"))
      assert(alter.getMessage === "[PERSIST_UNSUPPORTED_OPERATION] Cannot alter persist.events.parts: it is a view of " +
        "shard 'events'. alter persist.events instead. SQLSTATE: 0A000")
      val rename = intercept[UnsupportedOperationException](sql("ALTER TABLE persist.events.parts RENAME TO persist.other"))
      assert(rename.getMessage === "[PERSIST_UNSUPPORTED_OPERATION] Cannot rename persist.events.parts: it is a view of " +
        "shard 'events'. rename persist.events instead. SQLSTATE: 0A000")
    }
  }

  test("a configured as-of on a shard without complete times is an error saying what to do") {
    withShard("CREATE TABLE persist.events (id INT)") {
      withSQLConf(PersistConf.AsOf.key -> "5") {
        val e = intercept[InvalidAsOf](sql("SELECT * FROM persist.events").collect())
        assert(e.getMessage === "[PERSIST_INVALID_AS_OF.TIME] Cannot read shard 'events' as of 5: only times before upper = 0 are " +
          s"complete (since = 0, upper = 0). The shard holds no complete time yet; unset ${PersistConf.AsOf.key} " +
          "to read it as empty. SQLSTATE: 22023")
      }
    }
  }

  test("the catalog needs a root") {
    val e = intercept[IllegalArgumentException](new PersistCatalog().initialize("p",
      new org.apache.spark.sql.util.CaseInsensitiveStringMap(java.util.Map.of())))
    assert(e.getMessage === "[PERSIST_INVALID_OPTION] Catalog 'p': it needs the directory its shards live in: set " +
      s"spark.sql.catalog.p.root or ${PersistConf.Root.key}. SQLSTATE: 42K06")
  }

  test("an empty shard reads as zero rows through SQL and the DataFrame reader") {
    withShard("CREATE TABLE persist.events (id INT, v STRING)") {
      assert(sql("SELECT count(*), count(v) FROM persist.events").collect().toSeq === Seq(Row(0L, 0L)))
    }
  }
}
