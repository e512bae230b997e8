package sparkpersist.catalog

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.types._

import sparkpersist.PersistSparkSession
import sparkpersist.schema.{ColumnDef, ColumnPosition, SchemaEvolution, ShardSchema}
import sparkpersist.shard.{BatchMeta, BatchReplacement, RunMeta, SchemaChanged}
import sparkpersist.write.{PartFooters, SchemaMerge, ShardWriter, WriteOptions}

/**
 * `ALTER TABLE persist.<shard>` end to end: each schema change reads old parts by column id and
 * keeps pruning them with their statistics, which follow the ids. Every query runs with pushdown
 * on, soft (failing on any violation) and off ([[inEveryMode]]); the parts kept are asserted
 * exactly, before and after each change.
 */
class AlterTableSuite extends PersistSparkSession {

  private def withShard(ddl: String)(body: => Unit): Unit =
    try { sql(ddl); body } finally sql("DROP TABLE IF EXISTS persist.t")

  /** One batch of one part: `select` over range(from, until) as `id`. */
  private def insert(select: String, from: Int, until: Int, columns: String = ""): Unit =
    sql(s"INSERT INTO persist.t $columns SELECT /*+ REPARTITION(1) */ $select FROM range($from, $until)")

  /** `query`'s rows (as strings, sorted) and the parts kept with pushdown on (read or answered from stats), of `total`, in every mode. */
  private def reads(query: String, total: Int): (Seq[String], Int) = {
    val (rows, reports) = inEveryMode(query)
    assert(reports("off").map(_.metrics.partsKept) === Seq(total), query)
    assert(reports("soft").map(_.metrics.partsKept) === Seq(total), query)
    // Parts a count(*) answers from their statistics are kept by the filter too (proven true), not read.
    val kept = reports("on").map(r => r.metrics.partsKept + r.metrics.partsFromStats)
    assert(kept.size === 1, query)
    assert(reports("soft").map(_.metrics.partsPruned) === Seq(total - kept.head), query)
    (rows, kept.head.toInt)
  }

  private def kept(query: String, total: Int): Int = reads(query, total)._2

  private def shardSchema = store.open("t").state.schema

  test("ADD COLUMNS: old parts read null and are known all-null, so equality prunes them and IS NULL keeps them") {
    withShard("CREATE TABLE persist.t (id BIGINT, v INT)") {
      insert("id, CAST(id AS INT)", 0, 10)
      insert("id, CAST(id AS INT)", 10, 20)
      assert(kept("SELECT id FROM persist.t WHERE v >= 15", 2) === 1)
      sql("ALTER TABLE persist.t ADD COLUMNS (tag STRING COMMENT 'kind', score DOUBLE)")
      assert(spark.table("persist.t").schema === StructType(Seq(StructField("id", LongType),
        StructField("v", IntegerType), StructField("tag", StringType).withComment("kind"),
        StructField("score", DoubleType))))
      assert(shardSchema.columns.map(c => c.name -> c.id) === Seq("id" -> 1, "v" -> 2, "tag" -> 3, "score" -> 4))
      insert("id, CAST(id AS INT), IF(id % 2 = 0, 'even', 'odd'), id * 1.5D", 20, 24)
      assert(sql("SELECT * FROM persist.t WHERE id IN (3, 21)").collect().map(_.toString).sorted.toSeq ===
        Seq("[21,21,odd,31.5]", "[3,3,null,null]"))
      assert(kept("SELECT id FROM persist.t WHERE v >= 15", 3) === 2)
      assert(reads("SELECT id FROM persist.t WHERE tag = 'odd'", 3) === (Seq("[21]", "[23]"), 1))
      assert(kept("SELECT id FROM persist.t WHERE score > 0 OR tag < 'x'", 3) === 1)
      assert(reads("SELECT count(*) FROM persist.t WHERE tag IS NULL", 3) === (Seq("[20]"), 2))
      assert(kept("SELECT id FROM persist.t WHERE tag IS NOT NULL", 3) === 1)
      assert(kept("SELECT id FROM persist.t WHERE coalesce(tag, 'zz') = 'zz'", 3) === 2)
      // The parts table shows the added column's stats of old parts: every row null.
      val nulls = sql("SELECT c.null_count FROM persist.t.parts LATERAL VIEW explode(column_stats) AS c " +
        "WHERE c.column = 'tag'").collect().map(_.getLong(0)).sorted.toSeq
      assert(nulls === Seq(0L, 10L, 10L))
    }
  }

  test("RENAME COLUMN keeps the data and prunes with the stats of parts written under the old name") {
    withShard("CREATE TABLE persist.t (id BIGINT, v INT) TBLPROPERTIES (order_by = 'v')") {
      insert("id, CAST(id AS INT)", 0, 10)
      insert("id, CAST(id AS INT)", 10, 20)
      sql("ALTER TABLE persist.t RENAME COLUMN v TO amount")
      assert(spark.table("persist.t").schema.fieldNames.toSeq === Seq("id", "amount"))
      assert(shardSchema.orderBy === Seq("amount"))
      assert(shardSchema.column("amount").map(_.id) === Some(2))
      insert("id, CAST(id AS INT)", 20, 30)
      assert(reads("SELECT id FROM persist.t WHERE amount BETWEEN 12 AND 13", 3) === (Seq("[12]", "[13]"), 1))
      assert(kept("SELECT id FROM persist.t WHERE amount < 5 OR amount >= 25", 3) === 2)
      assert(sql("SELECT sum(amount) FROM persist.t").head().getLong(0) === (0 until 30).sum)
      // A part written before the rename still names the column as it was then, with its id.
      val first = store.open("t").state.parts.next()
      val (fields, _) = PartFooters.read(store.open("t").partPath(first).toString, spark.sessionState.newHadoopConf())
      assert(fields.take(2) === Seq("id" -> 1, "v" -> 2))
      val e = intercept[AnalysisException](sql("SELECT v FROM persist.t"))
      assert(e.getCondition === "UNRESOLVED_COLUMN.WITH_SUGGESTION")
    }
  }

  test("DROP COLUMN hides its data; a column added again under that name gets a new id and never shows it") {
    withShard("CREATE TABLE persist.t (id BIGINT, v INT, w STRING)") {
      insert("id, CAST(id AS INT), CAST(id AS STRING)", 0, 10)
      insert("id, CAST(id AS INT), CAST(id AS STRING)", 10, 20)
      sql("ALTER TABLE persist.t DROP COLUMN v")
      assert(spark.table("persist.t").schema.fieldNames.toSeq === Seq("id", "w"))
      assert(kept("SELECT id FROM persist.t WHERE w = '5'", 2) === 1)
      sql("ALTER TABLE persist.t ADD COLUMN v INT")
      assert(shardSchema.columns.map(c => c.name -> c.id) === Seq("id" -> 1, "w" -> 3, "v" -> 4))
      insert("id, CAST(id AS STRING), CAST(id * 100 AS INT)", 20, 25)
      assert(sql("SELECT count(*), count(v) FROM persist.t").head().toString === "[25,5]")
      // Old parts held v = 5 under the dropped id: neither their stats nor their row groups count.
      assert(reads("SELECT id FROM persist.t WHERE v = 5", 3) === (Nil, 0))
      assert(reads("SELECT count(*) FROM persist.t WHERE v IS NULL", 3) === (Seq("[20]"), 2))
      assert(reads("SELECT id FROM persist.t WHERE v >= 2200", 3) === (Seq("[22]", "[23]", "[24]"), 1))
      // The state replayed from the version files (not the rollup) is the same.
      val log = store.open("t").log
      val newest = log.current()
      assert(log.statesFrom(0).toSeq.last === newest)
      assert(newest.schema.maxColumnId === 0)
      // The state a change commits is the state others decode from it.
      val dropped = log.alterSchema(s => SchemaEvolution.dropColumn(s, "v", "ctx"))
      assert(dropped.schema.maxColumnId === 4)
      assert(dropped === store.open("t").state)
      val added = log.alterSchema(s => SchemaEvolution.addColumn(s, StructField("x", IntegerType), ColumnPosition.Last, "ctx"))
      assert(added.schema.columns.map(c => c.name -> c.id) === Seq("id" -> 1, "w" -> 3, "x" -> 5))
      assert(added === store.open("t").state)
    }
  }

  test("widening int to bigint, float to double, decimal precision and scale up maps old stats exactly") {
    withShard("CREATE TABLE persist.t (id BIGINT, n INT, f FLOAT, d DECIMAL(5, 2), s SMALLINT)") {
      insert("id, CAST(id AS INT), CAST(id AS FLOAT) / 4, CAST(id / 4 AS DECIMAL(5, 2)), CAST(id AS SMALLINT)", 0, 10)
      insert("id, CAST(id AS INT), CAST(id AS FLOAT) / 4, CAST(id / 4 AS DECIMAL(5, 2)), CAST(id AS SMALLINT)", 10, 20)
      sql("ALTER TABLE persist.t ALTER COLUMN n TYPE BIGINT")
      sql("ALTER TABLE persist.t ALTER COLUMN f TYPE DOUBLE")
      sql("ALTER TABLE persist.t ALTER COLUMN d TYPE DECIMAL(9, 3)")
      sql("ALTER TABLE persist.t ALTER COLUMN s TYPE BIGINT")
      assert(spark.table("persist.t").schema.map(_.dataType) ===
        Seq(LongType, LongType, DoubleType, DecimalType(9, 3), LongType))
      insert("id, id * 10000000000, CAST(id AS DOUBLE) / 4, CAST(id / 4 AS DECIMAL(9, 3)), id * 100000", 20, 25)
      assert(sql("SELECT * FROM persist.t WHERE id IN (5, 22)").collect().map(_.toString).sorted.toSeq ===
        Seq("[22,220000000000,5.5,5.500,2200000]", "[5,5,1.25,1.250,5]"))
      withSQLConf("spark.sql.parquet.enableVectorizedReader" -> "false") { // Spark's row-based reader widens too
        assert(sql("SELECT * FROM persist.t WHERE id IN (5, 22)").collect().map(_.toString).sorted.toSeq ===
          Seq("[22,220000000000,5.5,5.500,2200000]", "[5,5,1.25,1.250,5]"))
      }
      assert(kept("SELECT id FROM persist.t WHERE n = 12", 3) === 1)
      assert(kept("SELECT id FROM persist.t WHERE n > 2147483647", 3) === 1)
      assert(reads("SELECT id FROM persist.t WHERE f = 4.75D", 3) === (Seq("[19]"), 1))
      assert(reads("SELECT id FROM persist.t WHERE d < 0.5", 3) === (Seq("[0]", "[1]"), 1))
      assert(kept("SELECT id FROM persist.t WHERE s BETWEEN 3 AND 12", 3) === 2)
    }
  }

  test("refused changes say what to do and leave the schema as it was") {
    withShard("CREATE TABLE persist.t (id BIGINT, v INT, s STRUCT<a: INT>, c CHAR(3)) TBLPROPERTIES (order_by = 'id')") {
      insert("id, CAST(id AS INT), named_struct('a', 1), 'abc'", 0, 3)
      val before = shardSchema
      def refused(ddl: String): String = refusedChange(intercept[Exception](sql(ddl)))
      assert(refused("ALTER TABLE persist.t ALTER COLUMN v TYPE DOUBLE") === "[PERSIST_INVALID_SCHEMA] Cannot alter table persist.t: " +
        "column 'v' cannot change type from INT to DOUBLE. A shard column's type may only widen without changing " +
        "any value: tinyint/smallint/int to a wider integer type, float to double, and decimal(p, s) to " +
        "decimal(p', s') with s' >= s and p' - s' >= p - s. For another type, create a new shard and copy the " +
        "data with INSERT INTO ... SELECT CAST(...). SQLSTATE: 42K09")
      assert(refused("ALTER TABLE persist.t ADD COLUMN x INT NOT NULL") === "[PERSIST_INVALID_SCHEMA] Cannot alter table persist.t: an " +
        "added column must be nullable ('x' is NOT NULL), since parts written before it hold no value for it: " +
        "add it without NOT NULL. SQLSTATE: 42K09")
      assert(refused("ALTER TABLE persist.t DROP COLUMN id") === "[PERSIST_INVALID_SCHEMA] Cannot alter table persist.t: column 'id' is " +
        "in the shard's order key (id) and cannot be dropped. SQLSTATE: 42K09")
      assert(refused("ALTER TABLE persist.t ALTER COLUMN s.a COMMENT 'x'") === "[PERSIST_UNSUPPORTED_OPERATION] Cannot alter table persist.t: " +
        "'s.a' is a field inside a struct: fields inside structs can be added, dropped, renamed, widened and made " +
        "nullable, but keep their comment. Change the struct column instead. SQLSTATE: 0A000")
      assert(refused("ALTER TABLE persist.t ALTER COLUMN s.a TYPE STRING") === "[PERSIST_INVALID_SCHEMA] Cannot alter table persist.t: " +
        "field 's.a' cannot change type from INT to STRING. A shard column's type may only widen without changing " +
        "any value: tinyint/smallint/int to a wider integer type, float to double, and decimal(p, s) to " +
        "decimal(p', s') with s' >= s and p' - s' >= p - s. For another type, create a new shard and copy the " +
        "data with INSERT INTO ... SELECT CAST(...). SQLSTATE: 42K09")
      assert(refused("ALTER TABLE persist.t DROP COLUMN s.a") === "[PERSIST_INVALID_SCHEMA] Cannot alter table persist.t: 's.a' is the " +
        "only field of its struct; a struct keeps at least one field (drop the struct instead). SQLSTATE: 42K09")
      assert(refused("ALTER TABLE persist.t RENAME COLUMN v TO time").startsWith("[PERSIST_INVALID_NAME.RESERVED_COLUMN] Invalid name: column 'time' is reserved"))
      assert(shardSchema === before)
      assert(store.open("t").state.seqNo === 1)
      sql("ALTER TABLE persist.t ALTER COLUMN v DROP NOT NULL") // already nullable: nothing to write
      assert(store.open("t").state.seqNo === 1)
    }
  }

  test("a write or a compaction that started under the old schema cannot commit after a change") {
    withShard("CREATE TABLE persist.t (id BIGINT, v INT)") {
      insert("id, CAST(id AS INT)", 0, 2)
      val shard = store.open("t")
      val old = shard.state
      sql("ALTER TABLE persist.t ADD COLUMN tag STRING")
      val part = old.parts.next()
      val batch = BatchMeta("late", old.upper, old.upper + 1, IndexedSeq(RunMeta(IndexedSeq(part))), 0L)
      val e = intercept[SchemaChanged](shard.log.compareAndAppend(old.upper, batch, old.schema))
      assert(e.getMessage.startsWith("[PERSIST_SCHEMA_CHANGED_DURING_WRITE] Shard 't' changed its schema (ALTER TABLE) while this write ran"))
      assert(store.open("t").state.batches.size === 1)
      // A compaction's output written under the old schema is dropped, as if it lost a race.
      val replacement = BatchReplacement(IndexedSeq(old.batches.head.id), old.batches.head.copy(id = "merged"),
        Some(old.schema))
      assert(shard.log.replaceBatches(Seq(replacement))._2.isEmpty)
      assert(store.open("t").state.batches.map(_.id) === old.batches.map(_.id))
      val current = Some(shard.state.schema)
      assert(shard.log.replaceBatches(Seq(replacement.copy(writtenUnder = current)))._2.size === 1)
      assert(store.open("t").state.batches.map(_.id) === Seq("merged"))
    }
  }

  test("FIRST / AFTER, comments and DROP NOT NULL change no data") {
    withShard("CREATE TABLE persist.t (id BIGINT NOT NULL, v INT)") {
      insert("id, CAST(id AS INT)", 0, 3)
      sql("ALTER TABLE persist.t ADD COLUMN first_col STRING FIRST")
      sql("ALTER TABLE persist.t ADD COLUMN mid STRING AFTER id")
      sql("ALTER TABLE persist.t ALTER COLUMN v FIRST")
      sql("ALTER TABLE persist.t ALTER COLUMN v COMMENT 'value'")
      sql("ALTER TABLE persist.t ALTER COLUMN id DROP NOT NULL")
      assert(spark.table("persist.t").schema === StructType(Seq(StructField("v", IntegerType).withComment("value"),
        StructField("first_col", StringType), StructField("id", LongType), StructField("mid", StringType))))
      assert(sql("SELECT * FROM persist.t ORDER BY id").collect().map(_.toString).toSeq ===
        Seq("[0,null,0,null]", "[1,null,1,null]", "[2,null,2,null]"))
    }
  }

  test("compaction rewrites parts under the current schema: current names, ids, and exact stats") {
    withShard("CREATE TABLE persist.t (id BIGINT, v INT)") {
      insert("id, CAST(id AS INT)", 0, 10)
      insert("id, CAST(id AS INT)", 10, 20)
      sql("ALTER TABLE persist.t ADD COLUMN tag STRING")
      sql("ALTER TABLE persist.t RENAME COLUMN v TO amount")
      insert("id, CAST(id AS INT), 'new'", 20, 25)
      val before = sql("SELECT * FROM persist.t").collect().map(_.toString).sorted.toSeq
      val out = sql("CALL persist.system.compact(shard => 't', window_ms => 86400000, fan_in => 2)").collect().head
      assert((out.getAs[Int]("batches_before"), out.getAs[Int]("batches_after")) === (3, 2))
      assert(sql("SELECT * FROM persist.t").collect().map(_.toString).sorted.toSeq === before)
      val shard = store.open("t")
      val parts = shard.state.parts.toSeq
      val compacted = shard.state.batches.filter(_.appends > 1).flatMap(_.parts)
      assert(compacted.nonEmpty)
      compacted.foreach { p =>
        val (fields, _) = PartFooters.read(shard.partPath(p).toString, spark.sessionState.newHadoopConf())
        assert(fields.filterNot(f => f._1 == "time" || f._1 == "diff") === Seq("id" -> 1, "amount" -> 2, "tag" -> 3))
      }
      val total = parts.size
      assert(reads("SELECT id FROM persist.t WHERE tag = 'new' AND amount < 22", total) === (Seq("[20]", "[21]"), 1))
      assert(reads("SELECT id FROM persist.t WHERE amount > 100", total) === (Nil, 0))
    }
  }

  test("ADD COLUMN inside a struct: old parts read the field as null and are known all-null for it") {
    withShard("CREATE TABLE persist.t (id BIGINT, s STRUCT<a: INT, inner: STRUCT<x: INT>>)") {
      insert("id, named_struct('a', CAST(id AS INT), 'inner', named_struct('x', 1))", 0, 10)
      insert("id, named_struct('a', CAST(id AS INT), 'inner', named_struct('x', 1))", 10, 20)
      sql("ALTER TABLE persist.t ADD COLUMN s.b STRING")
      sql("ALTER TABLE persist.t ADD COLUMN s.inner.y INT")
      assert(spark.table("persist.t").schema("s").dataType.simpleString === "struct<a:int,inner:struct<x:int,y:int>,b:string>")
      insert("id, named_struct('a', CAST(id AS INT), 'inner', named_struct('x', 1, 'y', 7), 'b', 'new')", 20, 25)
      assert(sql("SELECT s.b, s.inner.y FROM persist.t WHERE id IN (3, 22)").collect().map(_.toString).sorted.toSeq ===
        Seq("[new,7]", "[null,null]"))
      assert(kept("SELECT id FROM persist.t WHERE s.b = 'new'", 3) === 1)
      assert(kept("SELECT id FROM persist.t WHERE s.inner.y = 7", 3) === 1)
      assert(kept("SELECT id FROM persist.t WHERE s.a >= 15", 3) === 2)
      assert(reads("SELECT count(*) FROM persist.t WHERE s.b IS NULL", 3) === (Seq("[20]"), 2))
      assert(store.open("t").log.statesFrom(0).toSeq.last === store.open("t").state)
    }
  }

  /** `query`'s rows (as strings, sorted) with the vectorized reader and with Spark's row-based one, which must agree. */
  private def rowsBothReaders(query: String): Seq[String] = {
    val vectorized = sql(query).collect().map(_.toString).sorted.toSeq
    withSQLConf("spark.sql.parquet.enableVectorizedReader" -> "false") {
      assert(sql(query).collect().map(_.toString).sorted.toSeq === vectorized, query)
    }
    vectorized
  }

  private def firstPartFieldIds: Seq[(Seq[String], Int)] = {
    val shard = store.open("t")
    PartFooters.allFieldIds(shard.partPath(shard.state.parts.next()).toString, spark.sessionState.newHadoopConf())
  }

  test("fields inside structs get ids at any depth, parts carry them, and RENAME COLUMN s.f keeps data and stats") {
    withShard("CREATE TABLE persist.t (id BIGINT, s STRUCT<a: INT, inner: STRUCT<x: INT>>, l ARRAY<STRUCT<e: INT>>)") {
      val row = "named_struct('a', CAST(id AS INT), 'inner', named_struct('x', CAST(id AS INT))), " +
        "array(named_struct('e', CAST(id AS INT)))"
      insert(s"id, $row", 0, 10)
      insert(s"id, $row", 10, 20)
      assert(shardSchema.columns.map(c => c.name -> c.fieldIds) === Seq("id" -> Map.empty,
        "s" -> Map(Seq("a") -> 4, Seq("inner") -> 5, Seq("inner", "x") -> 6), "l" -> Map(Seq("e") -> 7)))
      sql("ALTER TABLE persist.t RENAME COLUMN s.a TO amount")
      sql("ALTER TABLE persist.t RENAME COLUMN s.inner.x TO y")
      sql("ALTER TABLE persist.t RENAME COLUMN s.inner TO deep")
      assert(spark.table("persist.t").schema("s").dataType.simpleString === "struct<amount:int,deep:struct<y:int>>")
      assert(shardSchema.column("s").get.fieldIds === Map(Seq("amount") -> 4, Seq("deep") -> 5, Seq("deep", "y") -> 6))
      insert(s"id, $row", 20, 25)
      assert(rowsBothReaders("SELECT s.amount, s.deep.y, l[0].e FROM persist.t WHERE id IN (3, 22)") ===
        Seq("[22,22,22]", "[3,3,3]"))
      assert(rowsBothReaders("SELECT s FROM persist.t WHERE id = 4") === Seq("[[4,[4]]]"))
      assert(reads("SELECT id FROM persist.t WHERE s.amount BETWEEN 12 AND 13", 3) === (Seq("[12]", "[13]"), 1))
      assert(kept("SELECT id FROM persist.t WHERE s.deep.y < 5 OR s.deep.y >= 22", 3) === 2)
      // A part written before the renames still names the fields as they were then, with their ids.
      assert(firstPartFieldIds.filter(_._2 != -1).take(5) === Seq(Seq("id") -> 1, Seq("s") -> 2, Seq("s", "a") -> 4,
        Seq("s", "inner") -> 5, Seq("s", "inner", "x") -> 6))
      assert(firstPartFieldIds.collect { case (p, 7) => p } === Seq(Seq("l", "list", "element", "e")))
      assert(store.open("t").log.statesFrom(0).toSeq.last === store.open("t").state)
      // Compaction rewrites the old parts under the current names, with the same ids.
      val all = "SELECT id, s.amount, s.deep.y, l[0].e FROM persist.t"
      val before = rowsBothReaders(all)
      sql("CALL persist.system.compact(shard => 't', window_ms => 86400000, fan_in => 3)").collect()
      assert(store.open("t").state.parts.size === 1)
      assert(rowsBothReaders(all) === before)
      assert(firstPartFieldIds.filter(_._2 != -1).take(5) === Seq(Seq("id") -> 1, Seq("s") -> 2,
        Seq("s", "amount") -> 4, Seq("s", "deep") -> 5, Seq("s", "deep", "y") -> 6))
      assert(reads("SELECT id FROM persist.t WHERE s.amount BETWEEN 12 AND 13", 1) === (Seq("[12]", "[13]"), 1))
    }
  }

  test("DROP COLUMN s.f hides its data; a field added again under its name gets a new id and never shows it") {
    withShard("CREATE TABLE persist.t (id BIGINT, s STRUCT<a: INT, b: STRING>)") {
      insert("id, named_struct('a', CAST(id AS INT), 'b', CAST(id AS STRING))", 0, 10)
      insert("id, named_struct('a', CAST(id AS INT), 'b', CAST(id AS STRING))", 10, 20)
      sql("ALTER TABLE persist.t DROP COLUMN s.b")
      assert(spark.table("persist.t").schema("s").dataType.simpleString === "struct<a:int>")
      assert(kept("SELECT id FROM persist.t WHERE s.a = 5", 2) === 1)
      sql("ALTER TABLE persist.t ADD COLUMN s.b STRING")
      assert(shardSchema.column("s").get.fieldIds === Map(Seq("a") -> 3, Seq("b") -> 5))
      insert("id, named_struct('a', CAST(id AS INT), 'b', concat('n', id))", 20, 25)
      assert(rowsBothReaders("SELECT count(*), count(s.b) FROM persist.t") === Seq("[25,5]"))
      assert(rowsBothReaders("SELECT s FROM persist.t WHERE id IN (5, 21)") === Seq("[[21,n21]]", "[[5,null]]"))
      // Old parts held s.b = '5' under the dropped id: neither their stats nor their row groups count.
      assert(reads("SELECT id FROM persist.t WHERE s.b = '5'", 3) === (Nil, 0))
      assert(reads("SELECT count(*) FROM persist.t WHERE s.b IS NULL", 3) === (Seq("[20]"), 2))
      assert(reads("SELECT id FROM persist.t WHERE s.b >= 'n23'", 3) === (Seq("[23]", "[24]"), 1))
      assert(store.open("t").log.statesFrom(0).toSeq.last === store.open("t").state)
    }
  }

  test("ALTER COLUMN s.f TYPE widens a field, renamed or not, in both readers, mapping old stats exactly") {
    withShard("CREATE TABLE persist.t (id BIGINT, s STRUCT<n: INT, f: FLOAT>)") {
      insert("id, named_struct('n', CAST(id AS INT), 'f', CAST(id AS FLOAT) / 4)", 0, 10)
      insert("id, named_struct('n', CAST(id AS INT), 'f', CAST(id AS FLOAT) / 4)", 10, 20)
      sql("ALTER TABLE persist.t ALTER COLUMN s.n TYPE BIGINT")
      sql("ALTER TABLE persist.t RENAME COLUMN s.n TO m")
      sql("ALTER TABLE persist.t ALTER COLUMN s.f TYPE DOUBLE")
      assert(spark.table("persist.t").schema("s").dataType.simpleString === "struct<m:bigint,f:double>")
      insert("id, named_struct('m', id * 10000000000, 'f', CAST(id AS DOUBLE) / 4)", 20, 25)
      assert(rowsBothReaders("SELECT s.m, s.f FROM persist.t WHERE id IN (5, 22)") ===
        Seq("[220000000000,5.5]", "[5,1.25]"))
      assert(kept("SELECT id FROM persist.t WHERE s.m = 12", 3) === 1)
      assert(kept("SELECT id FROM persist.t WHERE s.m > 2147483647", 3) === 1)
      assert(reads("SELECT id FROM persist.t WHERE s.f = 4.75D", 3) === (Seq("[19]"), 1))
    }
  }

  test("a shard whose struct fields have no ids (created before them) reads them by name; rename is refused") {
    try {
      val columns = IndexedSeq(ColumnDef(1, "id", LongType, nullable = true),
        ColumnDef(2, "s", StructType(Seq(StructField("a", IntegerType), StructField("b", StringType))), nullable = true))
      store.create("t", ShardSchema(columns, Nil))
      insert("id, named_struct('a', CAST(id AS INT), 'b', CAST(id AS STRING))", 0, 10)
      assert(firstPartFieldIds.filter(_._1.head == "s") === Seq(Seq("s") -> 2, Seq("s", "a") -> -1, Seq("s", "b") -> -1))
      val e = intercept[Exception](sql("ALTER TABLE persist.t RENAME COLUMN s.a TO c"))
      assert(refusedChange(e) === "[PERSIST_INVALID_SCHEMA] Cannot alter table persist.t: field 's.a' " +
        "has no field id: the shard was created before sparkpersist gave ids to fields inside structs, so its parts " +
        "match the field by name and would lose its data under a new name. Add a new field (ADD COLUMN s.c) and " +
        "write it, or copy the data into a new shard. SQLSTATE: 42K09")
      // Dropping needs no id: the field added again gets one, which no old part holds.
      sql("ALTER TABLE persist.t DROP COLUMN s.b")
      sql("ALTER TABLE persist.t ADD COLUMN s.b STRING")
      assert(shardSchema.column("s").get.fieldIds === Map(Seq("b") -> 3))
      insert("id, named_struct('a', CAST(id AS INT), 'b', 'new')", 10, 12)
      assert(rowsBothReaders("SELECT s FROM persist.t WHERE id IN (4, 11)") === Seq("[[11,new]]", "[[4,null]]"))
      assert(reads("SELECT count(*) FROM persist.t WHERE s.b IS NULL", 2) === (Seq("[10]"), 1))
      assert(reads("SELECT id FROM persist.t WHERE s.a = 4", 2) === (Seq("[4]"), 1))
    } finally sql("DROP TABLE IF EXISTS persist.t")
  }

  test("a write merging its schema adds its columns and its batch in one state version, or neither") {
    withShard("CREATE TABLE persist.t (id BIGINT, v INT)") {
      insert("id, CAST(id AS INT)", 0, 10)
      val shard = store.open("t")
      val before = shard.state
      ShardWriter.write(sql("SELECT id, 'x' AS tag, named_struct('a', id) AS s FROM range(10, 12, 1, 1)"), shard,
        WriteOptions(mergeSchema = true))
      val after = store.open("t").state
      assert(after.seqNo === before.seqNo + 1)
      assert(after.schema.columns.map(c => (c.name, c.id, c.fieldIds)) ===
        Seq(("id", 1, Map.empty), ("v", 2, Map.empty), ("tag", 3, Map.empty), ("s", 4, Map(Seq("a") -> 5))))
      assert(sql("SELECT * FROM persist.t WHERE id IN (3, 11)").collect().map(_.toString).sorted.toSeq ===
        Seq("[11,null,x,[11]]", "[3,3,null,null]"))
      assert(reads("SELECT id FROM persist.t WHERE tag = 'x'", 2) === (Seq("[10]", "[11]"), 1))
      assert(store.open("t").log.statesFrom(before.seqNo).toSeq.last === after)
      // A write that fails (a time below the shard's upper) adds no column either.
      val late = sql("SELECT id, 'y' AS extra, 0L AS at FROM range(0, 2)")
      val e = intercept[IllegalArgumentException](ShardWriter.write(late, shard,
        WriteOptions(timeCol = Some("at"), mergeSchema = true)))
      assert(e.getMessage.startsWith("[PERSIST_INVALID_WRITE] Cannot write to shard 't': every time must be >= the shard's upper"))
      assert(store.open("t").state === after)
      // Another schema change while the write ran fails it, adding nothing.
      val merge = SchemaMerge(sql("SELECT id, 'z' AS extra FROM range(20, 21)"), shard, WriteOptions(mergeSchema = true))
      sql("ALTER TABLE persist.t ADD COLUMN other INT")
      assert(intercept[SchemaChanged](ShardWriter.write(merge.df, shard, WriteOptions(), merge.state,
        merge.alteredFrom)).getMessage.startsWith("[PERSIST_SCHEMA_CHANGED_DURING_WRITE] Shard 't' changed its schema (ALTER TABLE) while this write ran"))
      assert(store.open("t").state.schema.column("extra").isEmpty)
    }
  }
}
