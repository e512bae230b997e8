package sparkpersist.index

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import sparkpersist.{PersistConf, PersistSparkSession}
import sparkpersist.codec.Json
import sparkpersist.compact.{CompactionSettings, Compactor}
import sparkpersist.shard.ShardState

/**
 * The table property `sparkpersist.indexColumns` end to end: set at CREATE or by ALTER, kept in the
 * shard's state, followed by renames and drops, and honoured by SQL INSERT and compaction. Automatic
 * filters are off throughout, so a column has a filter only because the property names it.
 */
class IndexPropertySuite extends PersistSparkSession {

  private val Batches = 4

  override def beforeAll(): Unit = {
    super.beforeAll()
    spark.conf.set(PersistConf.AutoIndexValues.key, "0")
  }

  /** One part by SQL INSERT: 10 rows, user_id = 8 id + b (values interleave across parts), session_id 's-' || user_id. */
  private def insert(table: String, b: Int, columns: String = "user_id, session_id, other"): Unit = {
    val values = Map("user_id" -> s"id * 8 + $b", "uid" -> s"id * 8 + $b",
      "session_id" -> s"concat('s-', CAST(id * 8 + $b AS STRING))", "other" -> "id")
    val select = columns.split(", ").map(c => s"${values(c)} AS $c").mkString(", ")
    sql(s"INSERT INTO persist.$table SELECT /*+ COALESCE(1) */ $select FROM range(10)")
  }

  private def create(table: String, properties: String = ""): Unit = {
    sql(s"CREATE TABLE persist.$table (user_id BIGINT, session_id STRING, other BIGINT)" +
      (if (properties.isEmpty) "" else s" TBLPROPERTIES ($properties)"))
  }

  private def reads(table: String, where: String, kept: Int, rows: Int): Unit = {
    val (result, reports) = inEveryMode(s"SELECT * FROM persist.$table WHERE $where")
    assert(result.size === rows, where)
    assert(reports("on").map(_.metrics.partsKept) === Seq(kept), where)
  }

  private def property(table: String): Option[String] =
    sql(s"SHOW TBLPROPERTIES persist.$table").collect()
      .collectFirst { case r if r.getString(0) == IndexColumns.Property => r.getString(1) }

  private def versionOf(table: String, seqNo: Long): Int = {
    val file = new File(root, f"$table/state/$seqNo%020d.json")
    Json.parse(new String(Files.readAllBytes(file.toPath), StandardCharsets.UTF_8)).get("formatVersion").asInt()
  }

  test("SQL INSERT gives filters to the columns the property names at CREATE, and to no other") {
    create("named", s"'${IndexColumns.Property}' = 'user_id, SESSION_ID'")
    create("plain")
    (0 until Batches).foreach { b => insert("named", b); insert("plain", b) }
    assert(property("named") === Some("user_id,session_id"))
    assert(property("plain") === None)
    assert(versionOf("named", 0) === ShardState.IndexColumnsFormatVersion)
    assert(versionOf("plain", 0) === ShardState.FormatVersion)
    val schema = store.open("named").state.schema
    assert(schema.indexedIds === Set(schema.column("user_id").get.id, schema.column("session_id").get.id))

    reads("named", "user_id = 17", kept = 1, rows = 1)
    reads("named", "user_id IN (17, 26, 1000)", kept = 2, rows = 2)
    reads("named", "session_id = 's-43'", kept = 1, rows = 1)
    reads("named", "user_id <=> 3 OR session_id IN ('s-0', 's-9')", kept = 3, rows = 3)
    reads("named", "other = 3", kept = Batches, rows = Batches)
    reads("plain", "user_id = 17", kept = Batches, rows = 1)
    reads("plain", "user_id IN (17, 26, 1000)", kept = Batches, rows = 2)
  }

  test("ALTER TABLE SET TBLPROPERTIES indexes the writes after it; renames and drops follow the column") {
    create("altered")
    insert("altered", 0)
    insert("altered", 1)
    sql(s"ALTER TABLE persist.altered SET TBLPROPERTIES ('${IndexColumns.Property}' = 'user_id')")
    assert(property("altered") === Some("user_id"))
    insert("altered", 2)
    insert("altered", 3)
    // Parts 0 and 1 were written without filters: they are read whatever the value.
    reads("altered", "user_id = 8", kept = 2, rows = 1)
    reads("altered", "user_id = 10", kept = 3, rows = 1)
    reads("altered", "user_id IN (11, 19)", kept = 3, rows = 2)

    sql("ALTER TABLE persist.altered RENAME COLUMN user_id TO uid")
    assert(property("altered") === Some("uid"))
    insert("altered", 4, "uid, session_id, other")
    reads("altered", "uid = 12", kept = 3, rows = 1)
    sql("ALTER TABLE persist.altered DROP COLUMN uid")
    assert(property("altered") === None)
    assert(store.open("altered").state.schema.indexedIds === Set.empty)

    sql(s"ALTER TABLE persist.altered SET TBLPROPERTIES ('${IndexColumns.Property}' = 'session_id')")
    assert(property("altered") === Some("session_id"))
    sql(s"ALTER TABLE persist.altered UNSET TBLPROPERTIES ('${IndexColumns.Property}')")
    assert(property("altered") === None)
  }

  test("compaction gives merged parts the filters the property names, though their inputs had none") {
    create("compacted")
    (0 until Batches).foreach(insert("compacted", _))
    sql(s"ALTER TABLE persist.compacted SET TBLPROPERTIES ('${IndexColumns.Property}' = 'user_id')")
    val shard = store.open("compacted")
    assert(shard.state.parts.forall(_.stats.exists(_.columns.values.forall(_.members.isEmpty))))
    Compactor.compact(spark, shard, CompactionSettings(fanIn = 2, targetBytes = 1L << 30, windowMs = 1L << 40,
      retentionMs = None))
    val state = shard.state
    assert(state.partCount === 1)
    val schema = state.schema
    val stats = state.parts.next().stats.get.columns
    assert(stats(schema.column("user_id").get.id).members.isDefined)
    assert(stats(schema.column("other").get.id).members.isEmpty)
    reads("compacted", "user_id = 1000", kept = 0, rows = 0)
    reads("compacted", "user_id = 9", kept = 1, rows = 1)
  }

  test("decimal index columns: a widened column's 1.5000 finds the 1.50 of parts written before the ALTER") {
    sql(s"CREATE TABLE persist.prices (sku BIGINT, price DECIMAL(10, 2)) TBLPROPERTIES ('${IndexColumns.Property}' = 'price')")
    // Part b: prices 0.b0, 1.b0, ..., 9.b0 (every part's bounds span them all).
    (0 until Batches).foreach { b =>
      sql(s"INSERT INTO persist.prices SELECT /*+ COALESCE(1) */ id, CAST(id + $b / 10.0 AS DECIMAL(10, 2)) FROM range(10)")
    }
    reads("prices", "price = 3.20", kept = 1, rows = 1)
    reads("prices", "price IN (3.20, 4.30, 4.25)", kept = 2, rows = 2)
    sql("ALTER TABLE persist.prices ALTER COLUMN price TYPE DECIMAL(14, 4)")
    sql("INSERT INTO persist.prices SELECT /*+ COALESCE(1) */ 100, CAST(3.2 AS DECIMAL(14, 4))")
    reads("prices", "price = CAST(3.2000 AS DECIMAL(14, 4))", kept = 2, rows = 2)
    reads("prices", "price = CAST(3.2500 AS DECIMAL(14, 4))", kept = 0, rows = 0)
  }

  test("a property naming a column that is not one, or one of a type filters cannot hold, fails and changes nothing") {
    val unknown = intercept[IllegalArgumentException](create("bad", s"'${IndexColumns.Property}' = 'user_id,nope'"))
    assert(unknown.getMessage === "[PERSIST_INVALID_SCHEMA] Cannot create table persist.bad: sparkpersist.indexColumns names 'nope', not " +
      "column(s) of the table (columns: user_id, session_id, other). Name top-level columns. SQLSTATE: 42K09")
    assert(!store.exists("bad"))

    sql("CREATE TABLE persist.typed (user_id BIGINT, flag BOOLEAN, tags ARRAY<BIGINT>, nested STRUCT<a: INT>)")
    def refused(ddl: String): String = refusedChange(intercept[Exception](sql(ddl)))
    val unsupported = refused(s"ALTER TABLE persist.typed SET TBLPROPERTIES ('${IndexColumns.Property}' = 'flag, nested, tags')")
    assert(unsupported === "[PERSIST_INVALID_SCHEMA] Cannot alter table persist.typed: sparkpersist.indexColumns cannot index " +
      "'flag' (BOOLEAN), 'nested' (STRUCT<a: INT>): membership filters hold integral, date, timestamp, float, " +
      "double, decimal or UTF8_BINARY string values, or arrays of them. Remove the column from the property. SQLSTATE: 42K09")
    assert(property("typed") === None)
    sql(s"ALTER TABLE persist.typed SET TBLPROPERTIES ('${IndexColumns.Property}' = 'tags')")
    assert(property("typed") === Some("tags"))

    val other = refused("ALTER TABLE persist.typed SET TBLPROPERTIES ('color' = 'blue')")
    assert(other.endsWith(s"its properties are 'order_by', set at creation, '${IndexColumns.Property}', " +
      "'sparkpersist.clusterBy', 'sparkpersist.isolationLevel' and 'sparkpersist.iceberg'. SQLSTATE: 0A000"))
    assert(other.startsWith("[PERSIST_UNSUPPORTED_OPERATION] Cannot alter table persist.typed: "), other)
  }
}
