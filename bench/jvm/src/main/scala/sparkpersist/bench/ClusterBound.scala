package sparkpersist.bench

import org.apache.spark.sql.SparkSession

import sparkpersist.PersistConf
import sparkpersist.catalog.SessionShards
import sparkpersist.compact.{CompactOptions, Lifecycle}
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * ClusterBench's second table: the parts per sealed window a thin filter on each clustering
 * column reads, against the grid bound `ceil(P^(1-1/d))` for `P` parts a window and `d` columns,
 * at two part counts (11 and 40 a window) and `d` = 1, 2, 3 (the first `d` of ClusterBench's
 * columns), laid out along the Hilbert curve and in the grid. The same appends as ClusterBench's
 * first `days` days; automatic membership filters off (`stats.autoIndexValues = 0`), so that only
 * the layout prunes. Every answer is checked equal across the layouts.
 */
private[bench] object ClusterBound {
  private val Layouts = Seq("hilbert", "grid")
  private val PartCounts = Seq(11, 40)

  /** A thin filter per clustering column: a rare country, one user, one amount. */
  private val Thin = Map("country" -> "country = 'AU'", "user_id" -> "user_id = 4242", "amount" -> "amount = 150")

  def run(spark: SparkSession, days: Int, perDay: Int, batches: Int): Table = {
    val cases = for (p <- PartCounts; d <- 1 to 3; l <- Layouts) yield (p, d, l)
    def table(p: Int, d: Int, l: String) = s"bound_${l}_${p}_$d"
    spark.conf.set(PersistConf.AutoIndexValues.key, "0")
    try {
      cases.foreach { case (p, d, l) =>
        spark.sql(s"CREATE TABLE persist.${table(p, d, l)} (${ClusterBench.Columns})")
        spark.sql(s"ALTER TABLE persist.${table(p, d, l)} CLUSTER BY (${ClusterBench.Clustering.take(d).mkString(", ")})")
      }
      for (day <- 0 until days; b <- 0 until batches) {
        val df = ClusterBench.events(spark, day, b, perDay, batches)
        cases.foreach { case (p, d, l) =>
          ShardWriter.write(df, SessionShards.store(spark).open(table(p, d, l)), WriteOptions(timeCol = Some("ingest")))
        }
      }
      cases.foreach { case (p, d, l) =>
        val shard = SessionShards.store(spark).open(table(p, d, l))
        val dayBytes = shard.state.batches.map(_.bytes).sum / days
        // Parts of 1/(P - 0.5) of a day's bytes: a day's rows fill P of them.
        spark.conf.set(PersistConf.ClusterPartBytes.key, (dayBytes * 2 / (2 * p - 1)).toString)
        spark.conf.set(PersistConf.ClusterCurve.key, l)
        Lifecycle.compact(spark, table(p, d, l), CompactOptions())
      }
    } finally spark.conf.unset(PersistConf.AutoIndexValues.key)
    // The newest day is not sealed, so not clustered: the filters keep to the days before it.
    val sealedDays = days - 1
    val beforeLast = s"event_ts < TIMESTAMP '${java.time.Instant.ofEpochMilli(ClusterBench.Start + sealedDays * ClusterBench.Day)}'"
    val rows = for (p <- PartCounts; d <- 1 to 3; column <- ClusterBench.Clustering.take(d)) yield {
      val query = s"SELECT bit_xor(xxhash64(id, amount)), count(*) FROM %s WHERE ${Thin(column)} AND $beforeLast"
      val runs = Layouts.map(l => l -> Bench.runPersist(spark, query.format(s"persist.${table(p, d, l)}"), "on")).toMap
      require(runs.values.map(_.result).toSet.size == 1, s"layouts disagree on ${Thin(column)}: $runs")
      // Parts a sealed window holds (fewer than asked where values repeat: a curve's equal positions, a grid's full slabs).
      def parts(l: String) = {
        val clustered = SessionShards.store(spark).open(table(p, d, l)).state.batches.filter(_.clusteredBy.nonEmpty)
        clustered.map(_.partCount).sum.toDouble / clustered.size
      }
      def bound(l: String) = math.ceil(math.pow(parts(l), 1 - 1.0 / d) - 1e-9)
      def perWindow(l: String) = runs(l).partsRead.toDouble / sealedDays
      Seq(p, d, Thin(column), parts("hilbert"), parts("grid"), bound("grid"), perWindow("hilbert"), perWindow("grid"),
        perWindow("hilbert") / bound("hilbert"), perWindow("grid") / bound("grid"))
    }
    Table(s"Thin filters against the grid bound: $sealedDays sealed days x $perDay events, CLUSTER BY the first d of " +
      s"(${ClusterBench.Clustering.mkString(", ")})",
      Seq(Table.Column("P asked", "partsAsked"), Table.Column("d", "d"), Table.Column("filter", "filter"),
        Table.Column("P hilbert", "partsHilbert"), Table.Column("P grid", "partsGrid"),
        Table.Column("bound (grid P)", "bound", 0), Table.Column("hilbert / window", "hilbert", 2),
        Table.Column("grid / window", "grid", 2), Table.Column("hilbert / bound", "hilbertRatio", 2),
        Table.Column("grid / bound", "gridRatio", 2)),
      rows,
      Seq("Parts read per sealed window (pushdown on, automatic membership filters off); bound: ceil(P^(1-1/d)) for " +
        "the P parts a window of the layout holds (each ratio against its own layout's P); d = 1: the bound is the " +
        "ideal sort by the column."))
  }
}
