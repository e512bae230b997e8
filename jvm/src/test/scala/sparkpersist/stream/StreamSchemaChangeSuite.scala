package sparkpersist.stream

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.streaming.{StreamingQuery, StreamingQueryException}

/**
 * A running stream across schema changes of its shard ([[StreamSchemaCheck]]): it keeps going,
 * with exact rows, across a change that leaves its columns as they were; a change to a column it
 * reads stops it with what to do, and a restart from its checkpoint continues exactly there.
 */
class StreamSchemaChangeSuite extends StreamTesting {

  /** The rows each micro-batch of a query delivered, and the columns they had. */
  private final class Sink {
    val rows = ArrayBuffer.empty[String]
    var columns = Seq.empty[String]
    val collect: (DataFrame, Long) => Unit = (df, _) => synchronized {
      columns = df.columns.toSeq
      rows ++= df.collect().map(_.toString)
    }
    def seen: Seq[String] = synchronized(rows.toSeq.sorted)
  }

  test("a running stream keeps going across ADD COLUMN, and stops at a RENAME of its column until restarted") {
    sql("CREATE TABLE persist.evolving (id BIGINT, v STRING)")
    val checkpoint = newCheckpoint().getCanonicalPath
    def start(sink: Sink): StreamingQuery = spark.readStream.table("persist.evolving").writeStream
      .foreachBatch(sink.collect).option("checkpointLocation", checkpoint).start()
    val before, after = new Sink
    val running = start(before)
    try {
      sql("INSERT INTO persist.evolving VALUES (1, 'a')")
      running.processAllAvailable()
      assert(before.seen === Seq("[1,a]"))
      sql("ALTER TABLE persist.evolving ADD COLUMN tag STRING")
      sql("INSERT INTO persist.evolving VALUES (2, 'b', 'x')")
      running.processAllAvailable()
      // The stream's columns stay those it started with; the added one shows after a restart.
      assert(before.seen === Seq("[1,a]", "[2,b]"))
      sql("ALTER TABLE persist.evolving RENAME COLUMN v TO w")
      sql("INSERT INTO persist.evolving VALUES (3, 'c', 'y')")
      val e = intercept[StreamingQueryException](running.processAllAvailable())
      assert(causeOf[StreamSchemaChanged](e).map(_.getMessage) === Some("[PERSIST_STREAM_SCHEMA_CHANGED] Shard 'evolving' changed column 'v' " +
        "(ALTER TABLE renamed, dropped or retyped it, or a field inside it) after this stream started, so its rows " +
        "no longer match the stream's columns. Restart the query: it continues from its checkpoint under the " +
        "shard's current schema (update the query if it names the column). SQLSTATE: 55000"))
      assert(before.seen === Seq("[1,a]", "[2,b]"))
    } finally running.stop()
    val restarted = start(after)
    try {
      restarted.processAllAvailable()
      assert(after.columns === Seq("id", "w", "tag"))
      assert(after.seen === Seq("[3,c,y]"))
    } finally {
      restarted.stop()
      sql("DROP TABLE IF EXISTS persist.evolving")
    }
  }
}
