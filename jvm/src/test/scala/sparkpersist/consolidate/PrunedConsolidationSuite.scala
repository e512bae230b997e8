package sparkpersist.consolidate

import org.apache.spark.sql.QueryTest

import sparkpersist.schema.ShardSchema
import sparkpersist.write.{ShardWriter, WriteOptions}
import sparkpersist.{PersistConf, PersistSparkSession}

/**
 * A consolidated read that pruned parts may miss some updates of rows the filter rejects (found
 * by the compaction property): such a row must be dropped, never reported as inconsistent.
 */
class PrunedConsolidationSuite extends QueryTest with PersistSparkSession {
  import testImplicits._

  test("an insert in a skipped part and its retraction in a read part: the row is filtered, not an error") {
    store.create("pruned", ShardSchema.fromStruct(new org.apache.spark.sql.types.StructType().add("k", "int")
      .add("v", "string"), orderBy = Seq("k")))
    def write(rows: (Int, String, Long, Long)*): Unit = ShardWriter.write(rows.toDF("k", "v", "t", "d").coalesce(1),
      store.open("pruned"), WriteOptions(timeCol = Some("t"), diffCol = Some("d")))
    write((1, "a", 1L, 1L))
    write((1, "a", 2L, -1L), (9, "c", 2L, 1L))
    val (rows, reports) = inEveryMode("SELECT * FROM persist.pruned WHERE k >= 5")
    assert(rows === Seq("[9,c]"))
    assert(reports("on").map(_.metrics.partsKept) === Seq(1L))
    // Reading every part, an inconsistent shard is still reported.
    write((7, "x", 3L, -1L))
    val e = intercept[Exception](withSQLConf(PersistConf.PushdownMode.key -> "off")(sql("SELECT * FROM persist.pruned").collect()))
    assert(e.getMessage.contains("net multiplicity -1"))
  }
}
