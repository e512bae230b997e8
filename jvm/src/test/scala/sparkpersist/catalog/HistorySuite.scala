package sparkpersist.catalog

import java.nio.file.Files

import org.apache.spark.sql.{Encoder, QueryTest, Row}
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream

import sparkpersist.{PersistConf, PersistSparkSession}

/**
 * The shard's history (issue 52): `persist.<shard>.history` and `DESCRIBE HISTORY` after a script
 * of every operation that writes a state version, each row's operation, parameters and metrics
 * asserted exactly against what the operation did (as the batches and parts tables show it).
 */
class HistorySuite extends QueryTest with PersistSparkSession {

  /** The history rows, oldest first: (version, operation, parameters, metrics). */
  private def history(shard: String): Seq[(Long, String, Map[String, String], Map[String, String])] =
    sql(s"SELECT version, operation, operationParameters, operationMetrics FROM persist.$shard.history").collect()
      .map(r => (r.getLong(0), r.getString(1), r.getMap[String, String](2).toMap, r.getMap[String, String](3).toMap))
      .toSeq.reverse

  private def metrics(m: Map[String, String]): Map[String, Long] = m.map { case (k, v) => k -> v.toLong }

  test("every operation writes one history row naming it, its parameters and its metrics") {
    withSQLConf(PersistConf.CommitUserMetadata.key -> "nightly load") {
      sql("CREATE TABLE persist.h (k INT, v STRING) TBLPROPERTIES ('order_by' = 'k')")
      sql("INSERT INTO persist.h VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    }
    sql("INSERT INTO persist.h VALUES (4, 'd')")
    sql("DELETE FROM persist.h WHERE k = 4")          // proven on a whole part: a negation
    sql("UPDATE persist.h SET v = 'B' WHERE k = 2")
    sql("CREATE TEMPORARY VIEW src AS SELECT * FROM VALUES (3, 'C'), (5, 'e') AS s(k, v)")
    sql("MERGE INTO persist.h t USING src s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v " +
      "WHEN NOT MATCHED THEN INSERT *")
    sql("INSERT OVERWRITE persist.h SELECT * FROM VALUES (1, 'a'), (6, 'f') AS s(k, v)")
    sql("ALTER TABLE persist.h ADD COLUMNS (w DOUBLE)")
    sql("ALTER TABLE persist.h RENAME COLUMN v TO name")
    sql("ALTER TABLE persist.h SET TBLPROPERTIES ('sparkpersist.indexColumns' = 'name')")
    import testImplicits._
    val stream = MemoryStream[(Int, String)](implicitly[Encoder[(Int, String)]], spark)
    val checkpoint = Files.createTempDirectory("history-stream").toFile
    val query = stream.toDF().selectExpr("_1 AS k", "_2 AS name", "CAST(NULL AS DOUBLE) AS w").writeStream.option("checkpointLocation", checkpoint.getCanonicalPath)
      .toTable("persist.h")
    try {
      stream.addData((7, "g"), (8, "h"))
      query.processAllAvailable()
    } finally query.stop()
    val beforeCompaction = store.open("h").state
    sql("CALL persist.system.compact('h', retention_ms => 0)").collect()
    val afterCompaction = store.open("h").state
    val dropped = afterCompaction.batches.last
    sql(s"CALL persist.system.drop_batch('h', '${dropped.id}')").collect()

    val rows = history("h")
    assert(rows.map(_._1) === rows.indices.map(_.toLong))
    assert(rows.map(_._2) === Seq("CREATE TABLE", "WRITE", "WRITE", "DELETE", "UPDATE", "MERGE", "INSERT OVERWRITE",
      "ALTER TABLE", "ALTER TABLE", "SET TBLPROPERTIES", "STREAMING UPDATE", "SET SINCE", "COMPACTION", "DROP BATCH"))
    val byVersion = rows.map(r => r._1 -> (r._3, metrics(r._4))).toMap
    // What each batch added, as the state before the compaction holds it (the batches of versions 1-6 and 10).
    val batches = beforeCompaction.batches
    assert(batches.size === 7)
    Seq(1, 2, 3, 4, 5, 6, 10).zip(batches).foreach { case (version, b) =>
      val files = b.parts.filterNot(_.negated).toSeq
      val m = byVersion(version.toLong)._2
      assert(m("numAddedBatches") === 1L && m("numAddedParts") === files.size.toLong, s"version $version: $m")
      assert(m("numOutputUpdates") === files.map(_.rowCount).sum && m("numAddedBytes") === files.map(_.bytes).sum,
        s"version $version: $m")
    }
    def exact(version: Long) = byVersion(version)._2.filter { case (k, _) =>
      Set("numInsertedRows", "numRetractedRows", "numUpdatesWithRetractions")(k) }
    def counts(inserted: Long, retracted: Long, mixed: Long) =
      Map("numInsertedRows" -> inserted, "numRetractedRows" -> retracted, "numUpdatesWithRetractions" -> mixed)
    assert(exact(1) === counts(3, 0, 0))
    assert(exact(2) === counts(1, 0, 0))
    assert(exact(3) === counts(0, 1, 0)) // the part of (4, 'd') negated whole: no file written
    assert(byVersion(3L)._2("numAddedParts") === 0L)
    assert(exact(4) === counts(0, 0, 2)) // -(2, b) +(2, B) in one part
    assert(exact(5) === counts(0, 0, 3)) // -(3, c) +(3, C) +(5, e)
    assert(exact(10) === counts(2, 0, 0))
    assert(byVersion(0L)._1 === Map("columns" -> "k,v", "orderBy" -> "k"))
    assert(byVersion(3L)._1 === Map("predicate" -> "(persist.h.k = 4)"))
    assert(byVersion(4L)._1 === Map.empty && byVersion(5L)._1 === Map.empty)
    assert(byVersion(6L)._1 === Map("predicate" -> "true"))
    assert(byVersion(7L)._1 === Map("addedColumns" -> "w"))
    assert(byVersion(8L)._1 === Map("renamedColumns" -> "v -> name"))
    assert(byVersion(9L)._1 === Map("indexColumns" -> "name"))
    assert(byVersion(10L)._1.keySet === Set("queryId", "epochId") && byVersion(10L)._1("epochId") === "0")
    assert(byVersion(11L)._1 === Map("since" -> afterCompaction.since.toString))
    val compacted = byVersion(12L)._2
    assert(byVersion(12L)._1 === Map("groups" -> "1", "round" -> "1", "automatic" -> "false",
      "fanIn" -> PersistConf.CompactFanIn.default.toString, "targetBytes" -> PersistConf.CompactTargetBytes.default.toString,
      "windowMs" -> PersistConf.CompactWindowMs.default.toString))
    assert(compacted("numRemovedBatches") === 6L && compacted("numRemovedParts") === 10L)
    assert(compacted("numRemovedUpdates") === batches.init.map(_.rowCount).sum &&
      compacted("numRemovedBytes") === batches.init.map(_.bytes).sum)
    assert(compacted("numOutputUpdates") === afterCompaction.batches.head.rowCount)
    assert(byVersion(13L)._1 === Map("batchId" -> dropped.id))
    assert(byVersion(13L)._2("numRemovedUpdates") === 2L && byVersion(13L)._2("numAddedParts") === 0L)

    // Who and what committed, and what statements read.
    val who = sql("SELECT version, userName, appId, engineInfo, userMetadata, isBlindAppend, readUpper, readVersion " +
      "FROM persist.h.history").collect().map(r => r.getLong(0) -> r).toMap
    rows.indices.foreach { v =>
      val r = who(v.toLong)
      assert(r.getString(1) === spark.sparkContext.sparkUser && r.getString(2) === spark.sparkContext.applicationId)
      assert(r.getString(3) === s"sparkpersist/dev Apache-Spark/${org.apache.spark.SPARK_VERSION}")
      assert(r.getBoolean(5) === Set(1, 2, 10)(v), s"version $v")
    }
    assert((0 to 1).map(v => who(v.toLong).getString(4)) === Seq("nightly load", "nightly load"))
    assert(who(2L).isNullAt(4))
    assert((3 to 6).map(v => who(v.toLong).getLong(6)) === (3 to 6).map(v => batches(v - 1).lower))
    assert((3 to 6).map(v => who(v.toLong).getLong(7)) === (2 to 5).map(_.toLong))
    assert(who(1L).isNullAt(6) && who(12L).isNullAt(6) && who(1L).isNullAt(7))

    // Delta's columns, persist's, and the Iceberg ones, null for a shard without Iceberg metadata (IcebergValueSuite).
    assert(sql("DESCRIBE HISTORY persist.h").columns.toSeq === Seq("version", "timestamp", "userName", "operation",
      "operationParameters", "operationMetrics", "userMetadata", "engineInfo", "isBlindAppend", "readVersion", "readUpper",
      "appId", "icebergSnapshotId", "icebergNote"))
    assert(sql("SELECT * FROM persist.h.history WHERE icebergSnapshotId IS NOT NULL OR icebergNote IS NOT NULL").count() === 0)

    // DESCRIBE HISTORY through the extension's parser, newest first.
    checkAnswer(sql("DESCRIBE HISTORY persist.h LIMIT 2").select("version", "operation"),
      Seq(Row(13L, "DROP BATCH"), Row(12L, "COMPACTION")))
    assert(sql("desc  history /* the shard */ `persist`.`h`;").collect().map(_.getLong(0)).toSeq === (13 to 0 by -1))
  }
}
