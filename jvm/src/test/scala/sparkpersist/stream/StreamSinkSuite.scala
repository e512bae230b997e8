package sparkpersist.stream

import java.io.File

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.Encoder
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream
import org.apache.spark.sql.functions.{col, udf}
import org.apache.spark.sql.streaming.StreamingQuery
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}

import sparkpersist.compact.{CompactOptions, Lifecycle}
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{ShardHandle, StreamEpoch}
import sparkpersist.write.{ShardWriter, WriteOptions}

/** Set by a test to make the next write task of [[StreamSinkSuite]] fail. */
object FailingWrites {
  @volatile var failOn: Option[Long] = None
}

/**
 * `df.writeStream.toTable` into shards: one batch per micro-batch by compare-and-set, recording
 * its epoch, so a replayed epoch commits nothing and a failed one leaves nothing.
 */
class StreamSinkSuite extends StreamTesting {
  import testImplicits._

  private val kv = StructType(Seq(StructField("k", LongType), StructField("v", StringType)))

  private def create(name: String, schema: StructType = kv, orderBy: Seq[String] = Seq("k")): ShardHandle =
    store.create(name, ShardSchema.fromStruct(schema, orderBy))

  private def rows(query: String): Seq[String] = sql(query).collect().map(_.toString).toSeq.sorted

  private def input(): MemoryStream[(Long, String)] =
    MemoryStream[(Long, String)](implicitly[Encoder[(Long, String)]], spark)

  private def start(stream: MemoryStream[(Long, String)], table: String, checkpoint: File): StreamingQuery =
    stream.toDF().select(col("_2").as("v"), col("_1").as("k")) // not the shard's column order
      .writeStream.option("checkpointLocation", checkpoint.getCanonicalPath).toTable(table)

  /** The batch directories under the shard's parts: committed batches and whatever a failure left. */
  private def batchDirs(shard: ShardHandle): Set[String] = {
    val parts = new Path(shard.dir, ShardHandle.PartsDir)
    if (!shard.fs.exists(parts)) Set.empty else shard.fs.listStatus(parts).map(_.getPath.getName).toSet
  }

  test("each micro-batch commits one batch, stamped and recording its epoch; a replayed epoch commits nothing") {
    val shard = create("sink")
    val source = input()
    val checkpoint = newCheckpoint()
    val query = start(source, "persist.sink", checkpoint)
    source.addData(1L -> "a", 2L -> "b")
    query.processAllAvailable()
    source.addData(3L -> "c")
    query.processAllAvailable()
    query.stop()
    val queryId = query.id.toString
    val state = shard.state
    assert(state.batches.map(_.epochs) === Seq(Seq(StreamEpoch(queryId, 0L)), Seq(StreamEpoch(queryId, 1L))))
    assert(state.batches.forall(b => b.parts.forall(p => p.minTime == p.maxTime && !p.hasRetractions)))
    assert(rows("SELECT * FROM persist.sink") === Seq("[1,a]", "[2,b]", "[3,c]"))

    // The query "crashed" after committing epoch 1 to the shard, before recording it in the
    // checkpoint: the restarted query runs epoch 1 again, and the sink recognises it.
    Seq("commits/1", "commits/.1.crc").foreach(f => assert(new File(checkpoint, f).delete(), f))
    val restarted = start(source, "persist.sink", checkpoint)
    restarted.processAllAvailable()
    assert(new File(checkpoint, "commits/1").exists())
    source.addData(4L -> "d")
    restarted.processAllAvailable()
    restarted.stop()
    assert(restarted.id === query.id)
    assert(shard.state.batches.map(_.epochs.map(_.epochId)) === Seq(Seq(0L), Seq(1L), Seq(2L)))
    assert(rows("SELECT * FROM persist.sink") === Seq("[1,a]", "[2,b]", "[3,c]", "[4,d]"))
    // The replay's parts were deleted: only the committed batches' directories remain.
    assert(batchDirs(shard) === shard.state.batches.map(_.id).toSet)

    // Compaction merges batches and keeps the newest epoch of the query on the merged batch: a
    // replay of the latest epoch is still recognised.
    val compacted = Lifecycle.compact(spark, "sink", CompactOptions(fanIn = Some(2), targetBytes = Some(1L << 30),
      windowMs = Some(1L << 40)))
    assert(compacted.groupsMerged >= 1)
    val merged = shard.state.batches
    assert(merged.size < 3)
    assert(merged.map(_.epochs.map(_.epochId).max).max === 2L)
    assert(merged.forall(_.epochs.map(_.queryId) === Seq(queryId)))
    Seq("commits/2", "commits/.2.crc").foreach(f => assert(new File(checkpoint, f).delete(), f))
    val again = start(source, "persist.sink", checkpoint)
    again.processAllAvailable()
    again.stop()
    assert(new File(checkpoint, "commits/2").exists())
    assert(shard.state.batches.map(_.id) === merged.map(_.id))
    assert(rows("SELECT * FROM persist.sink") === Seq("[1,a]", "[2,b]", "[3,c]", "[4,d]"))
  }

  test("the sink gives the columns the table property names membership filters, and no other column") {
    sql(s"ALTER TABLE persist.${create("indexed_sink").name} SET TBLPROPERTIES ('sparkpersist.indexColumns' = 'k')")
    withSQLConf(sparkpersist.PersistConf.AutoIndexValues.key -> "0") {
      val source = input()
      val query = start(source, "persist.indexed_sink", newCheckpoint())
      try {
        source.addData(1L -> "a", 9L -> "b")
        query.processAllAvailable()
      } finally query.stop()
    }
    val state = store.open("indexed_sink").state
    val Seq(k, v) = Seq("k", "v").map(state.schema.column(_).get.id)
    val parts = state.parts.toSeq
    assert(parts.nonEmpty)
    assert(parts.forall(_.stats.get.columns(k).members.isDefined))
    assert(parts.forall(_.stats.get.columns(v).members.isEmpty))
  }

  test("a micro-batch whose write fails leaves nothing; the restarted query commits it once") {
    val shard = create("failing")
    val source = input()
    val checkpoint = newCheckpoint()
    val failing = udf((k: Long) => { if (FailingWrites.failOn.contains(k)) throw new IllegalStateException(s"failing on $k"); k })
    def run() = source.toDF().select(failing(col("_1")).as("k"), col("_2").as("v"))
      .writeStream.option("checkpointLocation", checkpoint.getCanonicalPath).toTable("persist.failing")
    val query = run()
    source.addData(1L -> "a")
    query.processAllAvailable()
    FailingWrites.failOn = Some(3L)
    try {
      source.addData(2L -> "b", 3L -> "c")
      val e = intercept[Exception](query.processAllAvailable())
      assert(causeOf[IllegalStateException](e).exists(_.getMessage == "failing on 3"), e)
    } finally FailingWrites.failOn = None
    query.stop()
    assert(shard.state.batches.size === 1)
    assert(batchDirs(shard) === shard.state.batches.map(_.id).toSet)

    val restarted = run()
    restarted.processAllAvailable()
    restarted.stop()
    assert(shard.state.batches.map(_.epochs.map(_.epochId)) === Seq(Seq(0L), Seq(1L)))
    assert(rows("SELECT * FROM persist.failing") === Seq("[1,a]", "[2,b]", "[3,c]"))
  }

  test("the write boundary: a null in a NOT NULL column fails its micro-batch, CHAR columns are refused") {
    val shard = create("strict", StructType(Seq(StructField("k", LongType, nullable = false), StructField("v", StringType))))
    val source = MemoryStream[(Option[Long], String)](implicitly[Encoder[(Option[Long], String)]], spark)
    val query = source.toDF().toDF("k", "v").writeStream
      .option("checkpointLocation", newCheckpoint().getCanonicalPath).toTable("persist.strict")
    source.addData(Some(1L) -> "a", None -> "b")
    val e = intercept[Exception](query.processAllAvailable())
    query.stop()
    assert(Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).exists(_.getMessage.contains(
      "Cannot write to shard 'strict': column 'k' of the shard is NOT NULL, but the stream holds a null in it.")), e)
    assert(shard.state.batches.isEmpty)
    assert(batchDirs(shard).isEmpty)

    sql("CREATE TABLE persist.chars (c CHAR(3))")
    val chars = MemoryStream[String](implicitly[Encoder[String]], spark)
    val refused = intercept[Exception] {
      val q = chars.toDF().toDF("c").writeStream
        .option("checkpointLocation", newCheckpoint().getCanonicalPath).toTable("persist.chars")
      chars.addData("abc")
      try q.processAllAvailable() finally q.stop()
    }
    assert(causeOf[UnsupportedOperationException](refused).exists(_.getMessage.startsWith(
      "[PERSIST_UNSUPPORTED_OPERATION] Cannot stream into shard 'chars': column 'c' is CHAR(3), whose length a streaming write does not check.")),
      refused)
  }

  test("a stream of a shard's updates writes them, times and diffs as they are, into another shard") {
    val schema = StructType(Seq(StructField("name", StringType)))
    create("src", schema, Seq("name"))
    create("dst", schema, Seq("name"))
    def update(rows: (String, Long, Long)*) =
      ShardWriter.write(rows.toDF("name", "t", "d").coalesce(1), store.open("src"),
        WriteOptions(timeCol = Some("t"), diffCol = Some("d")))
    update(("a", 100L, 1L), ("b", 100L, 1L))
    update(("a", 200L, -1L), ("c", 200L, 1L))
    val checkpoint = newCheckpoint()
    def copy(): Unit = {
      val query = spark.readStream.table("persist.src.updates").writeStream
        .option("checkpointLocation", checkpoint.getCanonicalPath).toTable("persist.dst")
      try query.processAllAvailable() finally query.stop()
    }
    copy()
    update(("b", 300L, -1L), ("d", 300L, 1L))
    copy()
    assert(rows("SELECT * FROM persist.dst.updates") === rows("SELECT * FROM persist.src.updates"))
    assert(rows("SELECT * FROM persist.dst") === Seq("[c]", "[d]"))
    assert(store.open("dst").state.batches.map(b => (b.lower, b.upper)) === Seq((0L, 201L), (201L, 301L)))

    val refused = intercept[Exception] {
      spark.readStream.table("persist.src.updates").select("name", "time")
        .writeStream.option("checkpointLocation", newCheckpoint().getCanonicalPath).toTable("persist.dst")
        .processAllAvailable()
    }
    assert(causeOf[IllegalArgumentException](refused).exists(_.getMessage.contains(
      "a write of updates needs both a 'time' and a 'diff' column")), refused)
  }
}
