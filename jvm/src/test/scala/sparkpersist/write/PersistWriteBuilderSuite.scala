package sparkpersist.write

import java.nio.file.Files
import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.{QueryTest, Row}
import org.apache.spark.sql.connector.catalog.{SupportsWrite, Table, TableCapability, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.functions.{col, lit, raise_error, when}
import org.apache.spark.sql.test.SharedSparkSession
import org.apache.spark.sql.types._
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.shard.{ShardHandle, ShardSchema, ShardStore}

/** The DSv2 append path (what `INSERT INTO persist.x` runs), through a minimal test table. */
class PersistWriteBuilderSuite extends QueryTest with SharedSparkSession {

  private def newShard(): (String, ShardHandle) = {
    val root = Files.createTempDirectory("shards").toString
    val schema = ShardSchema.fromStruct(StructType(Seq(
      StructField("k", LongType, nullable = false), StructField("v", StringType))), Seq("k"))
    (root, new ShardStore(root, spark.sparkContext.hadoopConfiguration).create("events", schema))
  }

  private def append(root: String, df: org.apache.spark.sql.DataFrame): Unit =
    df.write.format(classOf[TestShardProvider].getName).option("root", root).option("name", "events")
      .mode("append").save()

  test("an append commits one batch: one sorted run per task, stamped with the commit time") {
    val (root, shard) = newShard()
    val df = spark.range(0, 10, 1, 2).select((lit(100L) - col("id")).as("k"), col("id").cast("string").as("v"))
    append(root, df)
    val state = shard.state
    val Seq(batch) = state.batches
    assert(batch.lower === 0L && state.upper === batch.upper)
    assert(batch.runs.map(_.parts.map(_.rowCount)) === Seq(Seq(5L), Seq(5L)))
    val commitTime = batch.upper - 1
    batch.parts.foreach { p =>
      val rows = spark.read.parquet(shard.partPath(p).toString).collect().toSeq
      assert(rows.map(_.getLong(0)) === rows.map(_.getLong(0)).sorted)
      assert(rows.forall(r => r.getLong(2) == commitTime && r.getLong(3) == 1L))
    }
    checkAnswer(spark.read.parquet(batch.parts.map(p => shard.partPath(p).toString).toSeq: _*).select("k", "v"),
      (0 until 10).map(i => Row(100L - i, i.toString)))
  }

  test("a failing append commits nothing and deletes its parts") {
    val (root, shard) = newShard()
    val failing = spark.range(0, 10, 1, 2).select(col("id").as("k"),
      when(col("id") === 7, raise_error(lit("bad row"))).otherwise(col("id").cast("string")).as("v"))
    val e = intercept[RuntimeException with SparkThrowable](append(root, failing))
    assert(e.getCondition === "USER_RAISED_EXCEPTION")
    assert(e.getMessage === "[USER_RAISED_EXCEPTION] bad row SQLSTATE: P0001")
    assert(shard.state.batches.isEmpty && shard.state.seqNo === 0L)
    val parts = new java.io.File(new java.net.URI(shard.dir.toString + "/parts"))
    assert(!parts.exists() || parts.listFiles().forall(_.listFiles().isEmpty))
  }
}

/** A minimal DSv2 source over one shard (`root` and `name` options), for testing the write path. */
class TestShardProvider extends TableProvider {
  private def open(options: util.Map[String, String]): ShardHandle = {
    val conf = org.apache.spark.sql.SparkSession.active.sparkContext.hadoopConfiguration
    new ShardStore(options.get("root"), conf).open(options.get("name"))
  }
  override def inferSchema(options: CaseInsensitiveStringMap): StructType = open(options).state.schema.dataSchema
  override def getTable(schema: StructType, partitioning: Array[Transform], properties: util.Map[String, String]): Table =
    new TestShardTable(open(properties))
}

class TestShardTable(shard: ShardHandle) extends Table with SupportsWrite {
  override def name(): String = shard.name
  override def schema(): StructType = shard.state.schema.dataSchema
  override def capabilities(): util.Set[TableCapability] = Set(TableCapability.BATCH_WRITE).asJava
  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = new PersistWriteBuilder(shard, info)
}
