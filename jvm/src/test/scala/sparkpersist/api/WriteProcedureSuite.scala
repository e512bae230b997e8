package sparkpersist.api

import java.util.concurrent.{Callable, CyclicBarrier, Executors, TimeUnit}

import scala.util.control.NonFatal

import org.apache.spark.sql.{AnalysisException, Row}

import sparkpersist.PersistSparkSession
import sparkpersist.shard.UpperMismatch

/**
 * `CALL persist.system.write`: the write of clients without py4j (Spark Connect, the Thrift server)
 * commits as `sparkpersist.write` does and returns the batch it committed, never another writer's.
 */
class WriteProcedureSuite extends PersistSparkSession {

  /** The batch row (`batch_id, lower, upper, parts, rows`) a CALL of `persist.system.write` returned. */
  private def call(args: String): Row = {
    val out = sql(s"CALL persist.system.write($args)")
    assert(out.schema.fieldNames.toSeq === Seq("shard", "batch_id", "lower", "upper", "parts", "rows"))
    val Array(row) = out.collect()
    row
  }

  /** `persist.<shard>.batches` as (batch_id, lower, upper, parts, rows), oldest first. */
  private def batches(shard: String): Seq[(String, Long, Long, Int, Long)] =
    sql(s"SELECT batch_id, lower, upper, parts, row_count FROM persist.$shard.batches").collect().toSeq
      .map(r => (r.getString(0), r.getLong(1), r.getLong(2), r.getInt(3), r.getLong(4)))

  private def fields(row: Row): (String, Long, Long, Int, Long) =
    (row.getAs[String]("batch_id"), row.getAs[Long]("lower"), row.getAs[Long]("upper"), row.getAs[Int]("parts"),
      row.getAs[Long]("rows"))

  test("an append from a view creates the shard, is stamped with the commit time, and returns its batch") {
    sql("SELECT id, CAST(id * 10 AS STRING) AS tag FROM range(3)").createOrReplaceTempView("three")
    val before = System.currentTimeMillis()
    val first = call("shard => 'made', source => 'three', order_by => array('id'), max_rows_per_part => 2L")
    assert(first.getAs[String]("shard") === "made")
    assert(batches("made") === Seq(fields(first)))
    val (_, lower, upper, parts, rows) = fields(first)
    assert((lower, parts, rows) === (0L, 2, 3L))
    val times = sql("SELECT DISTINCT time FROM persist.made.updates").collect().map(_.getLong(0)).toSeq
    assert(times === Seq(upper - 1) && times.head >= before, "every row stamped with one commit time, now")
    assert(sql("SHOW TBLPROPERTIES persist.made ('order_by')").head().getString(1) === "id")

    val second = call("source => 'three', shard => 'made'")
    assert(batches("made") === Seq(fields(first), fields(second)))
    assert(fields(second)._2 === upper, "the next batch starts at the upper")
  }

  test("updates with time and diff columns, keep_stats, index_columns, and merge_schema") {
    sql("CREATE TABLE persist.acc (id BIGINT, bal DOUBLE)")
    sql("SELECT 1L AS id, 5.0D AS bal, 100L AS t, 1L AS d UNION ALL SELECT 1L, 5.0D, 101L, -1L")
      .createOrReplaceTempView("moves")
    val update = call("shard => 'acc', source => 'moves', time_col => 't', diff_col => 'd', " +
      "keep_stats => array('bal'), index_columns => array('id')")
    assert(fields(update)._2 === 0L && fields(update)._3 === 102L && fields(update)._5 === 2L)
    assert(sql("SELECT time, diff FROM persist.acc.updates ORDER BY time").collect().map(r => (r.getLong(0), r.getLong(1)))
      .toSeq === Seq(100L -> 1L, 101L -> -1L))
    sql("SELECT 2L AS id, 7.0D AS bal, 'n' AS note").createOrReplaceTempView("wider")
    call("shard => 'acc', source => 'wider', merge_schema => true")
    assert(spark.table("persist.acc").columns.toSeq === Seq("id", "bal", "note"))
  }

  test("a write of no rows commits nothing and returns an empty batch at the upper") {
    sql("SELECT 1L AS id").createOrReplaceTempView("one")
    val written = fields(call("shard => 'empties', source => 'one'"))
    sql("SELECT 1L AS id WHERE false").createOrReplaceTempView("none")
    val empty = fields(call("shard => 'empties', source => 'none'"))
    assert((empty._2, empty._3, empty._4, empty._5) === (written._3, written._3, 0, 0L))
    assert(batches("empties") === Seq(written))
  }

  test("refusals say what to do, and a failed first write leaves no shard") {
    val unnamed = intercept[Exception](sql("CALL persist.system.write(shard => 'x', source => CAST(NULL AS STRING))").collect())
    assert(unnamed.getMessage.contains("needs source"), unnamed)
    intercept[AnalysisException](sql("CALL persist.system.write(shard => 'x', source => 'no_such_view')").collect())
    sql("SELECT 1L AS id").createOrReplaceTempView("one")
    val ordered = intercept[Exception](call("shard => 'x', source => 'one', order_by => array('nope')"))
    assert(ordered.getMessage.contains("nope"), ordered)
    sql("SELECT 1L AS id, CAST(NULL AS BIGINT) AS t").createOrReplaceTempView("untimed")
    val untimed = intercept[Exception](call("shard => 'x', source => 'untimed', time_col => 't'"))
    assert(causes(untimed).exists(_.getMessage.contains("holds a null time")), untimed)
    assert(!store.exists("x"))
  }

  test("concurrent writers each get the batch that holds exactly their rows") {
    sql("CREATE TABLE persist.race (writer INT, n BIGINT)")
    val writers = 4
    val rowsEach = 50
    (0 until writers).foreach { w =>
      sql(s"SELECT $w AS writer, id AS n FROM range($rowsEach)").repartition(2).createOrReplaceTempView(s"rows_$w")
    }
    val start = new CyclicBarrier(writers)
    val pool = Executors.newFixedThreadPool(writers)
    val results = try {
      val futures = (0 until writers).map { w =>
        pool.submit(new Callable[(Int, Row, Int)] {
          override def call(): (Int, Row, Int) = {
            start.await()
            // A writer that loses the race commits nothing and retries, as the error says.
            def attempt(lost: Int): (Int, Row, Int) =
              try (w, WriteProcedureSuite.this.call(s"shard => 'race', source => 'rows_$w'"), lost)
              catch { case NonFatal(e) if causes(e).exists(_.isInstanceOf[UpperMismatch]) => attempt(lost + 1) }
            attempt(0)
          }
        })
      }
      futures.map(_.get(5, TimeUnit.MINUTES))
    } finally pool.shutdownNow()

    info(s"attempts that lost the race and were retried: ${results.map(_._3).sum}")
    val committed = batches("race")
    assert(committed.size === writers, "every writer committed exactly one batch; the losers' attempts left nothing")
    assert(results.map(r => fields(r._2)).toSet === committed.toSet)
    val updates = sql("SELECT writer, time FROM persist.race.updates").collect().map(r => (r.getInt(0), r.getLong(1)))
    results.foreach { case (w, row, _) =>
      val (_, lower, upper, _, rows) = fields(row)
      val inBatch = updates.filter { case (_, t) => t >= lower && t < upper }
      assert(inBatch.map(_._1).distinct.toSeq === Seq(w) && inBatch.length === rowsEach && rows === rowsEach,
        s"writer $w's batch [$lower, $upper) holds ${inBatch.groupBy(_._1).view.mapValues(_.length).toMap}")
    }
  }

  private def causes(e: Throwable): Iterator[Throwable] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20)
}
