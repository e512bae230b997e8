package sparkpersist.dml

import scala.util.{Random, Try}

import org.apache.spark.SparkConf

import sparkpersist.{PersistConf, PersistSparkSession}
import sparkpersist.compact.{CompactOptions, Lifecycle}

/**
 * Random histories of INSERT, DELETE, UPDATE, MERGE INTO, INSERT OVERWRITE and TRUNCATE run on a shard and on an oracle,
 * Spark's in-memory table of row-level operations (copy-on-write, from Spark's test jar): duplicate
 * rows, NULL keys, NaN and -0.0, a struct column, conditions that raise under ANSI (a cast of a
 * text column, a division by zero) and MERGE sources that match a target row twice. After every
 * statement both failed or both hold the same rows, read in every pushdown mode (soft failing on
 * violations) and consolidated by value instead of by position; at the end every earlier as-of
 * reads the snapshot it had then, and after a compaction the latest still equals the oracle.
 */
class RowLevelOperationsPropertySuite extends PersistSparkSession {

  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.catalog.oracle", "org.apache.spark.sql.connector.catalog.InMemoryRowLevelOperationTableCatalog")

  private val Columns = "id INT, bal DOUBLE, tag STRING, info STRUCT<a: INT, b: STRING>"

  private final class Statements(random: Random) {
    private def pick[T](xs: T*): T = xs(random.nextInt(xs.size))

    private def id: String = pick("NULL", "0", "1", "2", "3", "4", "5")
    private def bal: String = pick("NULL", "CAST('NaN' AS DOUBLE)", "-0.0D", "0.0D", "1.5D", "2.0D", "100.0D")
    private def tag: String = pick("NULL", "'1'", "'2'", "'x'", "'y'")
    private def info: String = pick("NULL", s"named_struct('a', ${pick("NULL", "0", "1", "3")}, 'b', ${pick("NULL", "'p'", "'q'")})")
    private def row: String = s"($id, $bal, $tag, $info)"

    // Equalities are written as IN: Spark's optimizer propagates `c = literal` into the other
    // conjuncts of a filter and folds them, raising at planning time where an ANSI error is then
    // constant (`id = 2 AND id / (id - 2) > 0`), as a SELECT with that filter does; Spark's
    // copy-on-write rewrite of the oracle evaluates the condition inside an `IF` and does not.
    private def atom(t: String): String = pick(
      s"$t.id IN (${random.nextInt(6)}, 99)", s"$t.id < ${random.nextInt(6)}", s"$t.id IS NULL", s"$t.bal > 1.0",
      s"isnan($t.bal)", s"$t.bal IN (0.0, 99.0)", s"$t.tag IN ('x', 'zz')", s"$t.tag IS NULL", s"$t.info.a = ${random.nextInt(4)}",
      s"$t.info IS NULL",
      // Raise under ANSI on some rows: a tag that is no number, an id of 2.
      s"CAST($t.tag AS INT) = 1", s"$t.id / ($t.id - 2) > 0")

    def condition(t: String): String = random.nextInt(4) match {
      case 0 => s"NOT (${atom(t)})"
      case 1 => s"(${atom(t)}) AND (${atom(t)})"
      case 2 => s"(${atom(t)}) OR (${atom(t)})"
      case _ => atom(t)
    }

    /** `column = value` for a random column, the value over the target `t` (and the source `s` of a MERGE). */
    private def assignments(t: String, s: Option[String], count: Int): String = random.shuffle(Seq(
      "bal" -> pick(s"$t.bal * 2", s.fold(bal)(s => s"$s.bal")),
      "tag" -> pick(s"concat($t.tag, 'u')", s.fold(tag)(s => s"$s.tag")),
      "info" -> s"named_struct('a', $t.id, 'b', $t.tag)",
      "id" -> s"$t.id + 1")).take(count).map { case (c, v) => s"$c = $v" }.mkString(", ")

    private def clauses(kind: String, make: () => String, conditionOf: () => String): Seq[String] = {
      val n = random.nextInt(3)
      (0 until n).map { i =>
        val when = if (i == n - 1 && random.nextBoolean()) "" else s" AND ${conditionOf()}"
        s"WHEN $kind$when THEN ${make()}"
      }
    }

    def next(): String = random.nextInt(9) match {
      case 0 | 1 => s"INSERT INTO {t} VALUES ${Seq.fill(1 + random.nextInt(4))(row).mkString(", ")}"
      case 8 => pick(s"INSERT OVERWRITE {t} VALUES ${Seq.fill(1 + random.nextInt(3))(row).mkString(", ")}",
        "TRUNCATE TABLE {t}")
      case 2 | 3 => s"DELETE FROM {t} WHERE ${condition("{t}")}"
      case 4 | 5 => s"UPDATE {t} SET ${assignments("{t}", None, 1 + random.nextInt(2))} WHERE ${condition("{t}")}"
      case _ =>
        val matched = clauses("MATCHED", () => pick("DELETE", "UPDATE SET *", s"UPDATE SET ${assignments("t", Some("s"), 1 + random.nextInt(2))}"),
          () => condition(pick("t", "s")))
        val notMatched = clauses("NOT MATCHED", () => pick("INSERT *", "INSERT (id, bal, tag, info) VALUES (s.id, s.bal + 1, 'new', NULL)"),
          () => condition("s"))
        val bySource = clauses("NOT MATCHED BY SOURCE", () => pick("DELETE", "UPDATE SET t.tag = 'gone'"), () => condition("t"))
        // Without a MATCHED clause Spark checks no cardinality, and its copy-on-write rewrite (the
        // oracle) copies a target row once per source row it matches: sources then have distinct keys.
        val rows = Seq.fill(1 + random.nextInt(3))(id -> s"$bal, $tag, $info")
        val keyed = if (matched.nonEmpty) rows else rows.filter(_._1 == "NULL") ++ rows.filter(_._1 != "NULL").distinctBy(_._1)
        val source = keyed.map { case (k, rest) => s"($k, $rest)" }.mkString(", ")
        val all = matched ++ notMatched ++ bySource
        val clausesText = if (all.isEmpty) "WHEN MATCHED THEN DELETE" else all.mkString("\n")
        s"MERGE INTO {t} t USING (SELECT * FROM VALUES $source AS v(id, bal, tag, info)) s " +
          s"ON t.id = s.id${pick("", " AND t.tag = s.tag")}\n$clausesText"
    }
  }

  private def rows(query: String): Seq[String] = sql(query).collect().map(_.toString).toSeq.sorted

  private def run(statement: String): Try[Unit] = Try(sql(statement).collect()).map(_ => ())

  Seq(1L, 2L, 3L, 4L, 5L).foreach { seed =>
    test(s"random statements on a shard and on the oracle agree (seed $seed)") {
      val table = s"h$seed"
      sql(s"CREATE TABLE oracle.$table ($Columns)")
      sql(s"CREATE TABLE persist.$table ($Columns)")
      val statements = new Statements(new Random(seed))
      val history = Seq.newBuilder[(Long, Seq[String])]
      var failures = 0
      var wholePartDeletes = 0
      var positional = 0
      (1 to 14).foreach { step =>
        val statement = statements.next()
        val oracle = withSQLConf("spark.sql.optimizer.excludedRules" ->
            "org.apache.spark.sql.execution.datasources.v2.OptimizeMetadataOnlyDeleteFromTable") {
          // The oracle empties itself by a row-level DELETE: from Spark 4.2 on, Spark's in-memory
          // test table keeps its rows under TRUNCATE TABLE (the shard empties, as in 4.1).
          run(statement.replace("TRUNCATE TABLE {t}", "DELETE FROM {t}").replace("{t}", s"oracle.$table"))
        }
        val shard = run(statement.replace("{t}", s"persist.$table"))
        assert(oracle.isSuccess === shard.isSuccess, s"step $step: $statement\noracle: $oracle\nshard: $shard")
        if (oracle.isFailure) failures += 1
        val expected = rows(s"SELECT * FROM oracle.$table")
        val (actual, _) = inEveryMode(s"SELECT * FROM persist.$table")
        assert(actual === expected, s"step $step: $statement")
        withSQLConf(PersistConf.PositionalReads.key -> "false") {
          assert(rows(s"SELECT * FROM persist.$table") === expected, s"step $step, consolidated by value: $statement")
        }
        val state = store.open(table).state
        if (shard.isSuccess && state.batches.lastOption.exists(_.parts.exists(_.negated))) wholePartDeletes += 1
        if (shard.isSuccess && state.batches.lastOption.exists(_.parts.exists(_.positions.nonEmpty))) positional += 1
        val upper = state.upper
        if (upper > 0) history += ((upper - 1) -> expected)
      }
      val past = history.result()
      past.foreach { case (asOf, expected) =>
        withSQLConf(PersistConf.AsOf.key -> asOf.toString) {
          assert(inEveryMode(s"SELECT * FROM persist.$table")._1 === expected, s"as of $asOf")
        }
      }
      Lifecycle.compact(spark, table, CompactOptions(retentionMs = Some(0L)))
      assert(inEveryMode(s"SELECT * FROM persist.$table")._1 === rows(s"SELECT * FROM oracle.$table"), "after compaction")
      info(s"${past.size} snapshots compared as of their time, $failures statements failed on both sides, " +
        s"$wholePartDeletes DELETEs retracted whole parts, $positional statements recorded positions")
    }
  }

  /**
   * Histories where `DELETE` decides whole parts: each INSERT is one day's rows (so each part
   * holds one day), DELETEs and UPDATEs by ranges of days. A DELETE that decides every part
   * negates the parts it deletes (no file written); one that meets a part holding retractions, or
   * straddling its bounds, reads rows. Either way the shard equals the oracle, in every mode and
   * at every earlier as-of, and after compaction.
   */
  Seq(11L, 12L, 13L).foreach { seed =>
    test(s"DELETEs by day, whole parts or rows, agree with the oracle (seed $seed)") {
      val table = s"d$seed"
      val columns = "day INT, id INT, bal DOUBLE"
      sql(s"CREATE TABLE oracle.$table ($columns)")
      sql(s"CREATE TABLE persist.$table ($columns) TBLPROPERTIES ('order_by' = 'day')")
      val random = new Random(seed)
      val history = Seq.newBuilder[(Long, Seq[String])]
      var whole = 0
      // Four days, then a DELETE of the first: every part decided, so whole parts at least once.
      val opening = (0 until 4).map(d => s"INSERT INTO {t} SELECT /*+ COALESCE(1) */ $d, CAST(id AS INT), id * 1.5 FROM range(3)") :+
        "DELETE FROM {t} WHERE day <= 0"
      (1 to opening.size + 14).foreach { step =>
        val day = random.nextInt(8)
        val statement = if (step <= opening.size) opening(step - 1) else random.nextInt(6) match {
          case 0 | 1 | 2 => s"INSERT INTO {t} SELECT /*+ COALESCE(1) */ $day, CAST(id AS INT), id * 1.5 FROM range(${1 + random.nextInt(5)})"
          case 3 => s"DELETE FROM {t} WHERE day <= $day"
          case 4 => s"DELETE FROM {t} WHERE day IN ($day, ${random.nextInt(8)}) OR day > ${4 + random.nextInt(4)}"
          case _ => s"UPDATE {t} SET bal = bal + 1 WHERE day = $day"
        }
        withSQLConf("spark.sql.optimizer.excludedRules" ->
            "org.apache.spark.sql.execution.datasources.v2.OptimizeMetadataOnlyDeleteFromTable") {
          sql(statement.replace("{t}", s"oracle.$table"))
        }
        sql(statement.replace("{t}", s"persist.$table"))
        val state = store.open(table).state
        if (state.batches.lastOption.exists(_.parts.exists(_.negated))) whole += 1
        val expected = rows(s"SELECT * FROM oracle.$table")
        assert(inEveryMode(s"SELECT * FROM persist.$table")._1 === expected, s"step $step: $statement")
        if (state.upper > 0) history += ((state.upper - 1) -> expected)
      }
      history.result().foreach { case (asOf, expected) =>
        withSQLConf(PersistConf.AsOf.key -> asOf.toString) {
          assert(inEveryMode(s"SELECT * FROM persist.$table")._1 === expected, s"as of $asOf")
        }
      }
      Lifecycle.compact(spark, table, CompactOptions(retentionMs = Some(0L)))
      assert(inEveryMode(s"SELECT * FROM persist.$table")._1 === rows(s"SELECT * FROM oracle.$table"), "after compaction")
      assert(whole > 0, "no DELETE retracted whole parts")
      info(s"$whole DELETEs retracted whole parts")
    }
  }
}
