package sparkpersist.catalyst

import org.apache.spark.sql.{QueryTest, Row}

import sparkpersist.PersistSparkSession

class RefuseAnalyzeSuite extends QueryTest with PersistSparkSession {

  test("ANALYZE TABLE on a persist table is refused with the reason; the plan's statistics come from the parts") {
    sql("CREATE TABLE persist.h (id BIGINT)")
    sql("INSERT INTO persist.h VALUES (1), (2), (3)")
    val reason = "is not needed: a persist table's statistics come from its parts. Every scan reports the size of " +
      "the parts it reads, after pruning, and their exact row count and column minimum, maximum and null count where " +
      "the shard's state knows them, as of the scan's time; statistics stored by ANALYZE would be stale after the " +
      "next batch. Run the query (EXPLAIN COST shows them) instead."
    Seq("ANALYZE TABLE persist.h COMPUTE STATISTICS", "ANALYZE TABLE persist.h COMPUTE STATISTICS NOSCAN",
      "ANALYZE TABLE persist.h COMPUTE STATISTICS FOR ALL COLUMNS").foreach { statement =>
      val e = intercept[UnsupportedOperationException](sql(statement))
      assert(e.getMessage === s"[PERSIST_UNSUPPORTED_OPERATION] ANALYZE TABLE persist.h: it $reason SQLSTATE: 0A000", statement)
    }
    withSQLConf("spark.sql.cbo.enabled" -> "true") {
      assert(spark.table("persist.h").queryExecution.optimizedPlan.stats.rowCount === Some(BigInt(3)))
    }
    checkAnswer(sql("SELECT count(*) FROM persist.h"), Row(3L))
  }
}
