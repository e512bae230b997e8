package sparkpersist.write

import java.io.File

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.{DataFrame, QueryTest, Row}
import org.apache.spark.sql.types.{ArrayType, IntegerType, StringType, StructField, StructType}

import sparkpersist.PersistSparkSession
import sparkpersist.api.PythonApi
import sparkpersist.compact.Lifecycle
import sparkpersist.schema.NestedNullability

/**
 * Nullability at every depth across batches (issue 29): a batch with nulls inside an array, map or
 * struct, written after one without, reads back in every pushdown mode, whichever way it is written;
 * NOT NULL declared in DDL inside a struct is enforced with Spark's own error and can be dropped;
 * struct fields are matched by name; a batch whose parts cannot be read can be removed on purpose.
 */
class NestedNullabilitySuite extends QueryTest with PersistSparkSession {

  private def write(df: DataFrame, shard: String): java.util.Map[String, Any] =
    PythonApi.write(df, shard, null, null, null, null, null, null)

  /** First batch without nulls inside, then one with (the variants), as `SELECT expr AS a`. */
  private val variants = Seq(
    "array" -> ("array(1, 2)", "array(CAST(NULL AS INT))"),
    "map_value" -> ("map('k', 1)", "map('k', CAST(NULL AS INT))"),
    "struct_field" -> ("named_struct('x', 1)", "named_struct('x', CAST(NULL AS INT))"),
    "map_key_struct" -> ("map(named_struct('x', 1), 1)", "map(named_struct('x', CAST(NULL AS INT)), 1)"),
    "deep" -> ("array(named_struct('x', array(1)))", "array(named_struct('x', array(CAST(NULL AS INT))))"))

  /** Every row of `persist.<shard>` in every pushdown mode (they must agree), as strings, sorted. */
  private def rows(shard: String): Seq[String] = inEveryMode(s"SELECT * FROM persist.$shard")._1

  /** What plain Spark gives for the same two batches. */
  private def oracle(first: String, second: String): Seq[String] =
    sql(s"SELECT $first AS a UNION ALL SELECT $second AS a").collect().map(_.toString).toSeq.sorted

  test("the issue's snippet and its variants: the writer's second batch with nulls inside reads back") {
    variants.foreach { case (name, (first, second)) =>
      val shard = s"w_$name"
      write(sql(s"SELECT $first AS a"), shard)
      write(sql(s"SELECT $second AS a"), shard)
      assert(rows(shard) === oracle(first, second), name)
      assert(!NestedNullability.hasNotNullInside(store.open(shard).state.schema.columns.head.dataType), name)
    }
  }

  test("the same through SQL: CREATE TABLE AS SELECT, then INSERT with nulls inside") {
    variants.foreach { case (name, (first, second)) =>
      val shard = s"sql_$name"
      sql(s"CREATE TABLE persist.$shard AS SELECT $first AS a")
      sql(s"INSERT INTO persist.$shard SELECT $second")
      assert(rows(shard) === oracle(first, second), name)
    }
  }

  test("a shard whose stored type says NOT NULL inside (as older writers made them) still writes only readable parts") {
    // Shards created before this rule kept the first DataFrame's nested NOT NULL: parts now store
    // every inner level optional, and a null there fails the write before anything commits.
    val strict = StructType(Seq(StructField("a", ArrayType(IntegerType, containsNull = false))))
    store.create("legacy_strict", sparkpersist.schema.ShardSchema.fromStruct(strict))
    write(sql("SELECT array(1, 2) AS a"), "legacy_strict")
    val e = intercept[Exception](write(sql("SELECT array(3, CAST(NULL AS INT)) AS a"), "legacy_strict"))
    assert(errorClass(e).contains("NOT_NULL_ASSERT_VIOLATION"), e)
    assert(rows("legacy_strict") === Seq("[ArraySeq(1, 2)]"))
    sql("ALTER TABLE persist.legacy_strict ALTER COLUMN a.element DROP NOT NULL")
    write(sql("SELECT array(3, CAST(NULL AS INT)) AS a"), "legacy_strict")
    assert(rows("legacy_strict") === Seq("[ArraySeq(1, 2)]", "[ArraySeq(3, null)]"))
  }

  test("NOT NULL declared inside a struct is enforced at every depth with Spark's error, by every writer") {
    sql("CREATE TABLE persist.ddl (s STRUCT<x: INT NOT NULL, y: STRING>, a ARRAY<STRUCT<z: INT NOT NULL>>)")
    assert(spark.table("persist.ddl").schema("s").dataType ===
      StructType(Seq(StructField("x", IntegerType, nullable = false), StructField("y", StringType))))
    sql("INSERT INTO persist.ddl SELECT named_struct('x', 1, 'y', 'a'), array(named_struct('z', 1))")
    val viaInsert = intercept[SparkThrowable](
      sql("INSERT INTO persist.ddl SELECT named_struct('x', CAST(NULL AS INT), 'y', 'b'), array()").collect())
    assert(viaInsert.getCondition === "NOT_NULL_ASSERT_VIOLATION")
    val viaWriter = intercept[Exception](write(
      sql("SELECT named_struct('x', 2, 'y', 'c') AS s, array(named_struct('z', CAST(NULL AS INT))) AS a"), "ddl"))
    assert(errorClass(viaWriter).contains("NOT_NULL_ASSERT_VIOLATION"), viaWriter)
    assert(messages(viaWriter).exists(m => m.contains("a") && m.contains("element") && m.contains("z")), viaWriter)
    assert(store.open("ddl").state.batches.size === 1, "a refused write commits nothing")
    sql("ALTER TABLE persist.ddl ALTER COLUMN a.element.z DROP NOT NULL")
    write(sql("SELECT named_struct('x', 2, 'y', 'c') AS s, array(named_struct('z', CAST(NULL AS INT))) AS a"), "ddl")
    assert(rows("ddl") === Seq("[[1,a],ArraySeq([1])]", "[[2,c],ArraySeq([null])]"))
    val stillStrict = intercept[SparkThrowable](
      sql("INSERT INTO persist.ddl SELECT named_struct('x', CAST(NULL AS INT), 'y', 'b'), array()").collect())
    assert(stillStrict.getCondition === "NOT_NULL_ASSERT_VIOLATION")
  }

  test("a stream's null inside a struct field declared NOT NULL fails the write task with Spark's error") {
    sql("CREATE TABLE persist.ddl_rows (s STRUCT<x: INT NOT NULL>)")
    val schema = store.open("ddl_rows").state.schema
    val check = NotNullInside.of(schema).getOrElse(fail("the shard declares a NOT NULL level inside"))
    import org.apache.spark.sql.catalyst.InternalRow
    check.check(InternalRow(InternalRow(1)))
    check.check(InternalRow(null))
    val e = intercept[SparkThrowable](check.check(InternalRow(InternalRow(null))))
    assert(e.getCondition === "NOT_NULL_ASSERT_VIOLATION")
    assert(NotNullInside.of(store.open("w_array").state.schema).isEmpty, "nothing to check in a relaxed shard")
  }

  test("struct fields are matched by name ignoring case at any depth; other differences are refused as before") {
    write(sql("SELECT named_struct('x', 1, 'y', 'a') AS s, array(named_struct('p', 1, 'q', 2)) AS l"), "by_name")
    write(sql("SELECT array(named_struct('Q', 20, 'p', 10)) AS l, named_struct('Y', 'b', 'X', 2) AS S"), "by_name")
    assert(rows("by_name") === Seq("[[1,a],ArraySeq([1,2])]", "[[2,b],ArraySeq([10,20])]"))
    val missing = intercept[IllegalArgumentException](
      write(sql("SELECT named_struct('x', 1) AS s, array(named_struct('p', 1, 'q', 2)) AS l"), "by_name")).getMessage
    assert(missing.contains("column 's' must be struct<x: int, y: string>"), missing)
    val retyped = intercept[IllegalArgumentException](
      write(sql("SELECT named_struct('y', 1, 'x', 1) AS s, array(named_struct('p', 1, 'q', 2)) AS l"), "by_name")).getMessage
    assert(retyped.contains("column 's' must be struct<x: int, y: string>"), retyped)
  }

  test("a batch whose part cannot be read is named by the read error and removed on purpose with drop_batch") {
    write(sql("SELECT 1 AS k"), "damaged")
    write(sql("SELECT 2 AS k"), "damaged")
    write(sql("SELECT 3 AS k"), "damaged")
    val state = store.open("damaged").state
    val middle = state.batches(1)
    val part = new File(root, s"damaged/${middle.parts.next().key}")
    java.nio.file.Files.write(part.toPath, Array.fill[Byte](64)(7))
    val e = intercept[Exception](sql("SELECT * FROM persist.damaged").collect())
    val unreadable = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
      .collectFirst { case u: sparkpersist.read.UnreadablePart => u }.getOrElse(fail(s"no read error: $e"))
    val (msg, path) = (unreadable.getMessage, unreadable.path)
    assert(msg.contains(s"written by batch ${middle.id} of shard 'damaged'"), msg)
    assert(msg.contains(s"CALL persist.system.drop_batch('damaged', '$path')"), msg)
    val dropped = sql(s"CALL persist.system.drop_batch('damaged', '$path')").collect()
    assert(dropped.map(r => (r.getString(1), r.getInt(4), r.getLong(5))).toSeq === Seq((middle.id, 1, 1L)))
    checkAnswer(sql("SELECT * FROM persist.damaged"), Seq(Row(1), Row(3)))
    val after = store.open("damaged").state
    assert(after.upper === state.upper && after.batches.size === 3 && after.batches(1).partCount === 0)
    assert(after.batches(1).lower === middle.lower && after.batches(1).upper === middle.upper)
    val unknown = intercept[IllegalArgumentException](Lifecycle.dropBatch(spark, "damaged", "no-such-batch")).getMessage
    assert(unknown.contains("has no batch 'no-such-batch'"), unknown)
    // By id, through the Scala lifecycle, a batch whose parts read fine goes too.
    Lifecycle.dropBatch(spark, "damaged", after.batches(2).id)
    checkAnswer(sql("SELECT * FROM persist.damaged"), Seq(Row(1)))
  }

  test("a shard written by the previous version with a null inside array<int not null>: named, dropped, then relaxed") {
    // test resource: three batches written by the sparkpersist before this fix (ids 1, 2, 3; the
    // second holds array(NULL, 3) in a shard that stored array<int not null>, so its part is unreadable).
    val legacy = new File(getClass.getResource("/legacy-shards/legacy_nested").toURI)
    org.apache.commons.io.FileUtils.copyDirectory(legacy, new File(root, "legacy_nested"))
    val corrupt = "d876da9a-ec55-449a-aca0-8f3ae4413f89"
    val e = intercept[Exception](sql("SELECT * FROM persist.legacy_nested").collect())
    val unreadable = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
      .collectFirst { case u: sparkpersist.read.UnreadablePart => u }.getOrElse(fail(s"no read error: $e"))
    assert(unreadable.getMessage.contains(s"written by batch $corrupt of shard 'legacy_nested'"), unreadable.getMessage)
    assert(unreadable.getMessage.contains("sparkpersist.drop_batch"), unreadable.getMessage)
    Lifecycle.dropBatch(spark, "legacy_nested", unreadable.path)
    assert(rows("legacy_nested") === Seq("[1,ArraySeq(1, 2)]", "[3,ArraySeq(4)]"))
    // Its type still says NOT NULL inside: a null there is refused until the user relaxes it.
    val refused = intercept[Exception](write(sql("SELECT 5 AS id, array(CAST(NULL AS INT)) AS a"), "legacy_nested"))
    assert(errorClass(refused).contains("NOT_NULL_ASSERT_VIOLATION"), refused)
    sql("ALTER TABLE persist.legacy_nested ALTER COLUMN a.element DROP NOT NULL")
    write(sql("SELECT 5 AS id, array(CAST(NULL AS INT)) AS a"), "legacy_nested")
    assert(rows("legacy_nested") === Seq("[1,ArraySeq(1, 2)]", "[3,ArraySeq(4)]", "[5,ArraySeq(null)]"))
  }

  private def messages(e: Throwable): Seq[String] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).map(t => String.valueOf(t.getMessage)).toSeq

  private def errorClass(e: Throwable): Option[String] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst {
      case t: SparkThrowable if t.getCondition != null && t.getCondition.startsWith("NOT_NULL") => t.getCondition
    }
}
