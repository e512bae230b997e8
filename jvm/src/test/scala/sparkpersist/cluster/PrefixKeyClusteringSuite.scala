package sparkpersist.cluster

import org.apache.spark.sql.{DataFrame, QueryTest}

import sparkpersist.{PersistConf, PersistSparkSession}
import sparkpersist.compact.{CompactOptions, Lifecycle}
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * A column of `customer-%06d` ids (a long shared prefix) clustered by compaction separates into
 * exactly the parts a column of the plain ints does, under every layout: the same rows in each
 * part, the same parts read by thin filters, and those exactly the parts whose ranges hold the
 * value. Plain Spark over a plain Parquet copy of the rows (pushdown off) is the oracle.
 */
class PrefixKeyClusteringSuite extends QueryTest with PersistSparkSession {

  private val Rows = 20000
  private val Customers = 5000
  private val Parts = 16

  /** The rows: ids, a customer number of `Customers`, 8 countries; `cust` as `customer-%06d` or as the int. */
  private def rows(strings: Boolean): DataFrame = {
    val cust = if (strings) "format_string('customer-%06d', CAST((id * 7919) % 5000 AS INT))" else "CAST((id * 7919) % 5000 AS INT)"
    spark.range(0, Rows, 1, 2).selectExpr("id", s"$cust AS cust", "concat('c', CAST(id % 8 AS STRING)) AS country")
  }

  /** A table of `rows(strings)` in 4 appends of one open day, laid out with `curve` into `Parts` parts. */
  private def clustered(table: String, strings: Boolean, curve: String): Unit = {
    sql(s"CREATE TABLE persist.$table (id BIGINT, cust ${if (strings) "STRING" else "INT"}, country STRING) " +
      "CLUSTER BY (cust, country) TBLPROPERTIES ('order_by' = 'id')")
    val shard = store.open(table)
    (0 until 4).foreach { a =>
      ShardWriter.write(rows(strings).where(s"id % 4 = $a").selectExpr("*", s"CAST(${(a + 1) * 3600000L} AS BIGINT) AS t"), shard,
        WriteOptions(timeCol = Some("t")))
    }
    // A part of a sixteenth of the rows (a little more, so that rounding never makes 17).
    val bytes = shard.state.batches.map(_.bytes).sum
    withSQLConf(PersistConf.ClusterPartBytes.key -> (bytes / Parts + bytes / (4L * Rows)).toString,
        PersistConf.ClusterCurve.key -> curve, PersistConf.AutoIndexValues.key -> "0") {
      Lifecycle.compact(spark, table, CompactOptions(targetBytes = Some(1L << 30), recluster = true))
    }
  }

  /** Each part's ids and its bounds of `cust` as the int (plain Spark's read of the part file). */
  private def parts(table: String): Seq[(Set[Long], Int, Int)] = {
    val shard = store.open(table)
    shard.state.parts.toSeq.map { p =>
      val part = spark.read.parquet(shard.partPath(p).toString)
        .selectExpr("id", "CAST(regexp_extract(CAST(cust AS STRING), '([0-9]+)$', 1) AS INT) AS n").collect()
      (part.map(_.getLong(0)).toSet, part.map(_.getInt(1)).min, part.map(_.getInt(1)).max)
    }
  }

  /** The rows of `where` equal plain Spark's over a plain Parquet copy of the rows; returns the parts read. */
  private def partsRead(table: String, strings: Boolean, where: String): Long = {
    val expected = plainParquet(rows(strings), where)
    val (got, reports) = inEveryMode(s"SELECT id, cust, country FROM persist.$table WHERE $where")
    assert(got === expected, where)
    reports("on").map(_.metrics.partsKept).sum
  }

  for (curve <- Seq("hilbert", "grid")) {
    test(s"$curve: customer-%06d ids separate into the parts plain ints do; thin filters read exactly the parts " +
      "whose ranges hold the value") {
      clustered(s"s_$curve", strings = true, curve)
      clustered(s"i_$curve", strings = false, curve)
      val (byString, byInt) = (parts(s"s_$curve"), parts(s"i_$curve"))
      assert(byString.size === Parts && byInt.size === Parts)
      assert(byString.map(_._1).toSet === byInt.map(_._1).toSet)
      assert(byString.map(_._1.size).sum === Rows)
      // Thin filters: one customer, a range of a few, and the range's ends; customers that straddle parts.
      val ranges = Seq((4242, 4242), (17, 17), (4999, 4999), (1000, 1009), (2500, 2503), (0, 2))
      val straddling = byInt.map(_._3).filter(_ < Customers - 1).take(3).map(n => (n, n + 1))
      for ((lo, hi) <- ranges ++ straddling) {
        val holding = byInt.count { case (_, min, max) => min <= hi && max >= lo }
        val strings = partsRead(s"s_$curve", strings = true, f"cust BETWEEN 'customer-$lo%06d' AND 'customer-$hi%06d'")
        val ints = partsRead(s"i_$curve", strings = false, s"cust BETWEEN $lo AND $hi")
        assert((strings, ints) === (holding, holding), s"cust in [$lo, $hi]")
        // A range of a few ids meets the slabs of at most two: each is cut by country into reach(16, 2) buckets.
        assert(holding <= (if (curve == "grid") 2 * GridLayout.reach(Parts, 2).head else Parts / 2), s"cust in [$lo, $hi]")
      }
      val one = partsRead(s"s_$curve", strings = true, "cust = 'customer-004242'")
      assert(one === partsRead(s"i_$curve", strings = false, "cust = 4242"))
      info(s"$curve: cust = 'customer-004242' reads $one of $Parts parts, as cust = 4242 does")
    }
  }
}
