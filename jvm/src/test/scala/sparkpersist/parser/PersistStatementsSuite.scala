package sparkpersist.parser

import org.scalatest.funsuite.AnyFunSuite

/** The persist statements recognised in front of Spark's parser, and what is left to Spark's. */
class PersistStatementsSuite extends AnyFunSuite {
  import PersistStatements.parse

  test("DESCRIBE HISTORY: any case, comments, quoted names, LIMIT, a trailing semicolon") {
    assert(parse("DESCRIBE HISTORY persist.events") === Some(DescribeHistory(Seq("persist", "events"), None)))
    assert(parse("  desc\n\thistory -- the shard\n persist . `we.ird``s` limit 5 ;") ===
      Some(DescribeHistory(Seq("persist", "we.ird`s"), Some(5))))
    assert(parse("/* a /* nested */ comment */ Describe History events") === Some(DescribeHistory(Seq("events"), None)))
  }

  test("texts that are not the persist statements are Spark's") {
    assert(parse("DESCRIBE history") === None) // a table named history
    assert(parse("DESCRIBE TABLE persist.events") === None)
    assert(parse("DESCRIBE HISTORY persist.events LIMIT x") === None)
    assert(parse("SELECT 'RESTORE TABLE t TO VERSION AS OF 1'") === None)
    assert(parse("DESCRIBE HISTORY 'unclosed") === None)
  }

  test("RESTORE: VERSION AS OF and TIMESTAMP AS OF, TABLE and TO optional") {
    assert(parse("RESTORE TABLE persist.events TO VERSION AS OF 12") ===
      Some(RestoreToVersion(Seq("persist", "events"), 12L)))
    assert(parse("restore `persist`.events version as of 3;") === Some(RestoreToVersion(Seq("persist", "events"), 3L)))
    assert(parse("RESTORE events TO TIMESTAMP AS OF '2026-11-20 00:00:00';") ===
      Some(RestoreToTimestamp(Seq("events"), "'2026-11-20 00:00:00'")))
    assert(parse("RESTORE TABLE t TO TIMESTAMP AS OF current_timestamp() - INTERVAL 1 HOUR") ===
      Some(RestoreToTimestamp(Seq("t"), "current_timestamp() - INTERVAL 1 HOUR")))
  }

  test("a malformed RESTORE fails saying the form") {
    Seq("RESTORE", "RESTORE TABLE t", "RESTORE t TO VERSION AS OF -1", "RESTORE t TO VERSION AS OF 'x'",
      "RESTORE t TO LATEST").foreach { sql =>
      val e = intercept[IllegalArgumentException](parse(sql))
      assert(e.getMessage === s"[PERSIST_INVALID_STATEMENT] Cannot run '$sql': its form is " +
        "RESTORE [TABLE] <table> [TO] VERSION AS OF <version> | TIMESTAMP AS OF <timestamp>, e.g. " +
        "RESTORE TABLE persist.events TO VERSION AS OF 12. SQLSTATE: 42601")
    }
  }
}
