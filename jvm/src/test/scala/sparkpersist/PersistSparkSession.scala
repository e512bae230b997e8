package sparkpersist

import java.io.File
import java.nio.file.Files

import org.apache.spark.SparkConf
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.test.SharedSparkSession

import sparkpersist.catalog.PersistCatalog
import sparkpersist.errors.PersistThrowable
import sparkpersist.scan.{ScanReport, ScanReports}
import sparkpersist.shard.ShardStore

/**
 * A suite's one Spark session with sparkpersist installed as users install it: the extension
 * (`mz_now()`, part pruning), the catalog `persist` over a fresh temporary root, UTC session time.
 */
trait PersistSparkSession extends SharedSparkSession {

  /** The catalog's root: a fresh temporary directory per suite. */
  protected lazy val root: File = Files.createTempDirectory(getClass.getSimpleName).toFile

  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.extensions", classOf[PersistExtensions].getName)
    .set("spark.sql.catalog.persist", classOf[PersistCatalog].getName)
    .set("spark.sql.catalog.persist.root", root.toURI.toString)
    .set("spark.sql.session.timeZone", "UTC")

  /** The shards under [[root]]. */
  protected def store: ShardStore = new ShardStore(root.toURI.toString, spark.sessionState.newHadoopConf())

  /**
   * Runs `query` with pushdown `on`, `soft` (failing on any violation) and `off`: all three must
   * return the same rows, and soft mode must count no violation. Returns the sorted rows and,
   * per mode, the scan reports.
   */
  protected def inEveryMode(query: String): (Seq[String], Map[String, Seq[ScanReport]]) = {
    val runs = Seq("on", "soft", "off").map(mode => mode -> inMode(mode, query))
    val results = runs.map(_._2._1).distinct
    assert(results.size === 1, s"modes disagree on $query: $runs")
    runs.foreach { case (mode, (_, reports)) =>
      reports.foreach(r => assert(r.softViolations.forall(_.sum == 0), s"$mode: $r"))
    }
    (results.head, runs.map { case (mode, (_, reports)) => mode -> reports }.toMap)
  }

  /** The sorted rows of `query` with pushdown `mode` (`soft` failing on any violation), and its scan reports. */
  protected def inMode(mode: String, query: String): (Seq[String], Seq[ScanReport]) =
    withSQLConf(PersistConf.PushdownMode.key -> mode, PersistConf.SoftFailOnViolation.key -> "true") {
      (sql(query).collect().map(_.toString).toSeq.sorted, ScanReports.last(spark))
    }

  /** The oracle: the sorted rows of plain Spark over a plain Parquet copy of `rows` (pushdown off) where `where` holds. */
  protected def plainParquet(rows: DataFrame, where: String): Seq[String] = {
    val copy = Files.createTempDirectory("oracle").resolve("rows").toString
    rows.write.parquet(copy)
    withSQLConf("spark.sql.parquet.filterPushdown" -> "false") {
      spark.read.parquet(copy).where(where).collect().map(_.toString).toSeq.sorted
    }
  }

  /** The catalog's own error message (`[PERSIST_...] ... SQLSTATE: ...`) for a refused ALTER TABLE, which
    * Spark 4.3 wraps in its own error class and SQLSTATE. */
  protected def refusedChange(e: Throwable): String =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst { case p: PersistThrowable => p.getMessage }
      .getOrElse(e.getMessage)
}
