package sparkpersist.stream

import org.apache.spark.sql.functions.lit
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}

import sparkpersist.KeyValueShards
import sparkpersist.compact.{CompactOptions, Lifecycle}
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{BatchMeta, ShardHandle}
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * `spark.readStream.table` over shards: the snapshot, then each committed batch, exactly once
 * across restarts; the updates view; rate limiting; a starting as-of; offsets below since.
 */
class StreamSourceSuite extends StreamTesting with KeyValueShards {
  import testImplicits._

  test("the snapshot, then each new batch, exactly once across restarts from the checkpoint") {
    create("events")
    append("events", 10L, 1L -> "a", 2L -> "b")
    append("events", 20L, 3L -> "c")
    val checkpoint = newCheckpoint()
    val stream = spark.readStream.table("persist.events")
    assert(stream.schema === kv)

    val first = runAvailableNow(stream, checkpoint)
    assert(first.map(_.rows) === Seq(Seq("[1,a]", "[2,b]", "[3,c]")))
    assert(first.head.scans.map(s => (s.asOf, s.metrics.partsKept)) === Seq((Some(20L), 2L)))

    // Nothing new: a restart runs no micro-batch.
    assert(runAvailableNow(stream, checkpoint) === Nil)

    append("events", 30L, 4L -> "d")
    sql("INSERT INTO persist.events VALUES (5, 'e'), (6, 'f')") // stamped with the commit time
    val second = runAvailableNow(stream, checkpoint)
    assert(second.map(_.rows) === Seq(Seq("[4,d]", "[5,e]", "[6,f]")))
    // Only the two new batches' parts are read.
    assert(second.head.scans.map(_.metrics.partsKept) ===
      Seq(store.open("events").state.batches.drop(2).map(_.partCount.toLong).sum))
    assert(second.head.id === first.head.id + 1)

    append("events", store.open("events").state.upper, 7L -> "g")
    assert(runAvailableNow(stream, checkpoint).map(_.rows) === Seq(Seq("[7,g]")))
    assert(runAvailableNow(stream, checkpoint) === Nil)
  }

  test("maxBatchesPerTrigger admits that many batches per micro-batch; startingAsOf picks the snapshot") {
    create("limited")
    (1 to 5).foreach(i => append("limited", i * 10L, i.toLong -> s"v$i"))
    val stream = spark.readStream.option("maxBatchesPerTrigger", "2").option("startingAsOf", "20")
      .table("persist.limited")
    val batches = runAvailableNow(stream, newCheckpoint())
    // The snapshot as of 20 is one micro-batch whatever the limit; then two batches at a time.
    assert(batches.map(_.rows) === Seq(Seq("[1,v1]", "[2,v2]"), Seq("[3,v3]", "[4,v4]"), Seq("[5,v5]")))
    assert(batches.map(_.scans.map(_.asOf)) === Seq(Seq(Some(20L)), Seq(Some(40L)), Seq(Some(50L))))

    val invalid = intercept[Exception](runAvailableNow(
      spark.readStream.option("startingAsOf", "51").table("persist.limited"), newCheckpoint()))
    assert(causeOf[IllegalArgumentException](invalid).exists(_.getMessage.contains(
      "Cannot read shard 'limited' as of 51: only times before upper = 51 are complete (since = 0, upper = 51). " +
        "Set option startingAsOf to a time in [0, 50], or set it to 'latest' to read the latest.")),
      invalid)
    val malformed = intercept[Exception](runAvailableNow(
      spark.readStream.option("maxBatchesPerTrigger", "0").table("persist.limited"), newCheckpoint()))
    assert(causeOf[IllegalArgumentException](malformed).exists(_.getMessage.contains(
      "Invalid streaming read option maxBatchesPerTrigger = '0'")), malformed)
  }

  test("the updates view streams (data, time, diff); the snapshot view refuses retractions after its snapshot") {
    create("accounts", StructType(Seq(StructField("name", StringType))), Seq("name"))
    update("accounts", ("a", 100L, 1L), ("b", 100L, 1L))
    update("accounts", ("a", 200L, -1L), ("c", 200L, 1L))
    val updates = newCheckpoint()
    val rows = newCheckpoint()
    val first = runAvailableNow(spark.readStream.table("persist.accounts.updates"), updates)
    assert(first.map(_.rows) === Seq(Seq("[a,100,1]", "[a,200,-1]", "[b,100,1]", "[c,200,1]")))
    // The snapshot view's snapshot is consolidated.
    assert(runAvailableNow(spark.readStream.table("persist.accounts"), rows).map(_.rows) === Seq(Seq("[b]", "[c]")))

    update("accounts", ("b", 300L, -1L), ("d", 300L, 1L))
    assert(runAvailableNow(spark.readStream.table("persist.accounts.updates"), updates).map(_.rows) ===
      Seq(Seq("[b,300,-1]", "[d,300,1]")))
    val refused = intercept[Exception](runAvailableNow(spark.readStream.table("persist.accounts"), rows))
    assert(causeOf[UnsupportedOperationException](refused).exists(_.getMessage.startsWith(
      "[PERSIST_UNSUPPORTED_OPERATION] Cannot stream shard 'accounts' as rows: the updates at times [201, 300] include retractions")), refused)
  }

  test("an offset at or below since after compaction fails with what to do; a fresh checkpoint reads on") {
    create("ledger", StructType(Seq(StructField("name", StringType))), Seq("name"))
    update("ledger", ("a", 100L, 1L))
    val checkpoint = newCheckpoint()
    val stream = spark.readStream.table("persist.ledger.updates")
    assert(runAvailableNow(stream, checkpoint).map(_.rows) === Seq(Seq("[a,100,1]")))
    update("ledger", ("a", 200L, -1L), ("b", 200L, 1L))
    update("ledger", ("c", 300L, 1L))
    val result = Lifecycle.compact(spark, "ledger", CompactOptions(retentionMs = Some(50L), fanIn = Some(8),
      targetBytes = Some(1L << 30), windowMs = Some(86400000L)))
    assert(result.since === 251L) // upper 301 - retention 50

    val e = intercept[Exception](runAvailableNow(stream, checkpoint))
    val below = causeOf[OffsetBelowSince](e).getOrElse(fail(e))
    assert((below.upper, below.since) === (101L, 251L))
    assert(below.getMessage.startsWith("[PERSIST_STREAM_OFFSET_BELOW_SINCE] Cannot continue streaming shard 'ledger' from its checkpointed offset " +
      "(upper = 101): its history up to since = 251 has been compacted"))
    assert(below.getMessage.contains("Restart the query with a fresh checkpoint location"))
    assert(below.getMessage.contains("option startingAsOf = t for a t in [251, 300]"))

    // A fresh checkpoint starts from the snapshot (its updates, which sum to b and c) and streams on.
    val fresh = newCheckpoint()
    val snapshot = runAvailableNow(stream, fresh)
    assert(snapshot.size === 1)
    assert(accumulate(snapshot.head.rows) === Map("b" -> 1L, "c" -> 1L))
    update("ledger", ("d", 400L, 1L))
    assert(runAvailableNow(stream, fresh).map(_.rows) === Seq(Seq("[d,400,1]")))
  }

  /** The multiplicity of each name in `[name,time,diff]` rows: what the updates add up to. */
  private def accumulate(rows: Seq[String]): Map[String, Long] =
    rows.map(_.stripPrefix("[").stripSuffix("]").split(",")).groupMapReduce(_(0))(_(2).toLong)(_ + _).filter(_._2 != 0)
}
