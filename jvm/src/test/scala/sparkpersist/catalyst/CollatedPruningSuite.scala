package sparkpersist.catalyst

import sparkpersist.PersistSparkSession

/**
 * Collated string columns at the default settings, end to end: a shard of 6 parts (one append
 * each) with UTF8_LCASE, UNICODE_CI, UNICODE and UTF8_LCASE_RTRIM columns. Each query's answer equals plain Spark's over the same rows
 * (a temporary view), and reads exactly the parts that hold its rows with pushdown on, as in soft
 * mode (failing on any violation), and every part off.
 */
class CollatedPruningSuite extends PersistSparkSession {

  private val Parts = 6
  private val Words = Seq("apple", "Banana", "cherry", "DATE", "elder", "Fig")
  private val Cities = Seq("Zürich", "zurich", "Åre", "Oslo", "São Paulo", "Köln")
  private val Codes = Seq("a", "B", "c", "D", "e", "F")

  /** Part `p`'s rows: 25 ids, even suffixes only, every third name and city in capitals. */
  private def part(p: Int): String =
    s"""SELECT CAST($p * 100 + i AS BIGINT) AS id,
       |  CAST(CASE WHEN i % 3 = 0 THEN upper('${Words(p)}' || i) ELSE '${Words(p)}' || i END AS STRING COLLATE UTF8_LCASE) AS name,
       |  CAST(CASE WHEN i % 3 = 0 THEN upper('${Cities(p)}') ELSE '${Cities(p)}' END AS STRING COLLATE UNICODE_CI) AS city,
       |  CAST('${Codes(p)}' || i AS STRING COLLATE UNICODE) AS code,
       |  CAST(CASE WHEN i % 2 = 0 THEN 'x' ELSE 'x  ' END AS STRING COLLATE UTF8_LCASE_RTRIM) AS note
       |FROM (SELECT explode(sequence(0, 48, 2)) AS i)""".stripMargin

  override def beforeAll(): Unit = {
    super.beforeAll()
    sql("CREATE TABLE persist.people (id BIGINT, name STRING COLLATE UTF8_LCASE, city STRING COLLATE UNICODE_CI, " +
      "code STRING COLLATE UNICODE, note STRING COLLATE UTF8_LCASE_RTRIM)")
    (0 until Parts).foreach(p => sql(s"INSERT INTO persist.people ${part(p)}"))
    sql((0 until Parts).map(part).mkString(" UNION ALL ")).createOrReplaceTempView("people_plain")
  }

  /** Asserts `where` selects what plain Spark selects, reading `kept` parts with pushdown on. */
  private def assertReads(where: String, kept: Int): Unit = {
    val query = s"SELECT id FROM persist.people WHERE $where"
    val (result, reports) = inEveryMode(query)
    val expected = sql(s"SELECT id FROM people_plain WHERE $where").collect().map(_.toString).toSeq.sorted
    assert(result === expected, query)
    assert(reports("on").map(_.metrics.partsKept) === Seq(kept), query)
    assert(reports("soft").map(_.metrics.partsPruned) === Seq(Parts - kept), query)
    assert(reports("off").map(_.metrics.partsKept) === Seq(Parts), query)
  }

  test("UTF8_LCASE: equality and IN ignore case; a value between a part's bounds that it lacks is ruled out by its filter") {
    assertReads("name = 'CHERRY4'", kept = 1)
    assertReads("name = 'cherry6'", kept = 1)
    assertReads("name = 'cherry5'", kept = 0)
    assertReads("name IN ('APPLE0', 'fig48', 'date7')", kept = 2)
    assertReads("name <=> 'ELDER10'", kept = 1)
    assertReads("NOT (name = 'banana2')", kept = Parts)
  }

  test("UTF8_LCASE ranges follow the collation's order, not the bytes") {
    assertReads("name < 'C'", kept = 2)
    assertReads("name >= 'date' AND name <= 'ELDER99'", kept = 2)
    assertReads("name >= 'FIG'", kept = 1)
    assertReads("name > 'zz'", kept = 0)
  }

  test("ICU collations: UNICODE_CI is case-blind and accent-aware, UNICODE orders a < B < c") {
    assertReads("city = 'ZÜRICH'", kept = 1)
    assertReads("city = 'ZURICH'", kept = 1)
    assertReads("city IN ('oslo', 'KÖLN')", kept = 2)
    assertReads("city = 'Bergen'", kept = 0)
    assertReads("code < 'c'", kept = 2)
    assertReads("code >= 'd0' AND code < 'e'", kept = 1)
  }

  test("functions of collated columns and other collations are read, never pruned wrongly; RTRIM ignores trailing spaces") {
    assertReads("upper(name) = 'CHERRY4'", kept = Parts)
    assertReads("lower(name) LIKE 'ch%'", kept = Parts)
    assertReads("(name COLLATE UTF8_BINARY) = 'cherry4'", kept = Parts)
    assertReads("note = 'x   '", kept = Parts)
    assertReads("note = 'y'", kept = 0)
    assertReads("name = 'cherry4' AND id < 100", kept = 0)
  }
}
