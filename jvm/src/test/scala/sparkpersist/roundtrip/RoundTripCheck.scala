package sparkpersist.roundtrip

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types.{DataType, StructType}

import sparkpersist.PersistConf
import sparkpersist.api.PythonApi
import sparkpersist.catalog.SessionShards
import sparkpersist.scan.ScanReports
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.ShardHandle
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * The round-trip property for one [[GeneratedShard]], in `spark` (a session with the sparkpersist
 * extension and its catalog registered as `persist`):
 *
 *  1. the shard is created and its batches written (`ShardWriter`, or SQL `INSERT … BY NAME`),
 *     each with its own nullability at every depth, column and struct field order, under the
 *     shard's write settings; then, under its read settings, `SELECT * FROM persist.<shard>`
 *     returns exactly the rows of the DataFrames written (as multisets of [[Canonical]] rows),
 *     with pushdown `on` and `off`;
 *  1. every part's stats — top-level columns as `persist.<shard>.parts` shows them, nested ones
 *     from the shard's state — match what [[StatsRecount]] recomputes from the part file as Spark
 *     reads it alone (`spark.read.parquet`), whose schema must be the shard's;
 *  1. random filters over the data's own values ([[RandomPredicates]]) return, with pushdown `on`,
 *     `soft` (failing on any violation) and `off`, exactly what Spark returns for them over the
 *     DataFrame written.
 *
 * All reads of a shard run as one query: the filters as branches of a `UNION ALL`, branch 0
 * unfiltered, so a shard costs one query per pushdown mode. The filters over the DataFrame
 * written (a local relation) are evaluated by Spark's optimizer, without a job.
 */
final class RoundTripCheck(spark: SparkSession, predicatesPerShard: Int) {

  def run(shard: GeneratedShard): RoundTripOutcome = {
    // Physical plans take the thread's active session when planned (executeCollect needs it).
    SparkSession.setActiveSession(spark)
    val report = new Report(shard)
    // A local relation: Spark evaluates the filters over it while planning, without a job.
    val source = spark.createDataFrame(shard.rows.asJava, shard.schema)
    val expected = internalRows(source)
    report.features = Coverage.of(shard.schema, expected)
    val filters = RandomPredicates(shard.rand, shard.schema, expected, predicatesPerShard)
    val store = SessionShards.store(spark)
    try {
      if (!shard.createdByWriter) store.create(shard.name, ShardSchema.fromStruct(shard.declared, shard.orderBy))
      if (report.attempt("write")(write(shard))) {
        val handle = store.open(shard.name)
        SessionSettings(spark, shard.readSettings)(read(shard, source, expected, filters, report))
        SessionSettings(spark, Map("spark.sql.session.timeZone" -> "UTC"))(checkStats(shard, handle, report))
      }
    } finally {
      spark.catalog.dropTempView(sourceView(shard))
      if (report.clean && store.exists(shard.name)) store.drop(shard.name)
    }
    report.outcome(expected.size, filters.size)
  }

  /** Writes the batches; a shard `createdByWriter` is created by the first, as the Python writer creates one. */
  private def write(shard: GeneratedShard): Unit =
    SessionSettings(spark, shard.writeSettings + (PersistConf.MaxRowsPerPart.key -> shard.maxRowsPerPart.toString)) {
      shard.batches.zipWithIndex.foreach { case (b, i) =>
        val rows = dataFrame(b.schema, b.rows, b.partitions)
        if (shard.createdByWriter && i == 0) {
          PythonApi.write(rows, shard.name, null, null, null, shard.orderBy.asJava, null, null, null, false, null)
        } else if (b.insert) {
          rows.createOrReplaceTempView(s"${shard.name}_batch")
          try spark.sql(s"INSERT INTO persist.${shard.name} BY NAME SELECT * FROM ${shard.name}_batch")
          finally spark.catalog.dropTempView(s"${shard.name}_batch")
        } else ShardWriter.write(rows, SessionShards.store(spark).open(shard.name), WriteOptions())
      }
    }

  private def sourceView(shard: GeneratedShard) = s"${shard.name}_source"

  /** Branch `i` for each filter `i - 1`, and if `unfiltered` branch 0 (everything), as one query over `table`. */
  private def query(table: String, filters: Seq[String], unfiltered: Boolean): String =
    ((if (unfiltered) Seq(0 -> "TRUE") else Nil) ++ filters.zipWithIndex.map { case (f, i) => (i + 1) -> f })
      .map { case (i, f) => s"SELECT $i AS branch, * FROM $table WHERE $f" }.mkString("\nUNION ALL\n")

  private def read(shard: GeneratedShard, source: DataFrame, expected: Seq[InternalRow], filters: Seq[String],
      report: Report): Unit =
    // The filters name columns in SQL text: Spark's variable substitution would rewrite a name
    // holding `${...}` before parsing it (seed 1, shard 408 of the soak).
    SessionSettings(spark, Map("spark.sql.variable.substitute" -> "false")) {
      readFiltered(shard, source, expected, filters, report)
    }

  private def readFiltered(shard: GeneratedShard, source: DataFrame, expected: Seq[InternalRow], filters: Seq[String],
      report: Report): Unit = {
    source.createOrReplaceTempView(sourceView(shard))
    var wanted = Map.empty[Int, Seq[String]]
    val oracle = report.attempt("the filters over the DataFrame written") {
      wanted = (expected +: filters.map(f => internalRows(spark.sql(s"SELECT * FROM ${sourceView(shard)} WHERE $f"))))
        .zipWithIndex.map { case (rows, b) => b -> rows.map(Canonical.row(_, shard.schema)).sorted }.toMap
    }
    if (oracle) {
      // Without a filter, soft mode reads exactly as the others do: it runs the filters only.
      for (mode <- Seq("on", "soft", "off"); unfiltered = mode != "soft" if unfiltered || filters.nonEmpty) {
        SessionSettings(spark, Map(PersistConf.PushdownMode.key -> mode, PersistConf.SoftFailOnViolation.key -> "true")) {
          try {
            val got = byBranch(spark.sql(query(s"persist.${shard.name}", filters, unfiltered)), shard.schema)
            if (mode == "on") report.partsPruned += ScanReports.last(spark).map(_.metrics.partsPruned).sum
            (if (unfiltered) 0 else 1).to(filters.size).foreach { b =>
              val what = if (b == 0) "SELECT *" else s"filter ${filters(b - 1)}"
              report.compareRows(s"pushdown $mode, $what", wanted.getOrElse(b, Nil), got.getOrElse(b, Nil))
            }
            if (unfiltered) report.values += expected.size.toLong * shard.schema.length
          } catch {
            case NonFatal(e) => report.failed(s"pushdown $mode: the filters failed; alone:${alone(shard, filters)}", e)
          }
        }
      }
    }
  }

  /** When the union of all filters fails, each filter alone, to name the culprit. */
  private def alone(shard: GeneratedShard, filters: Seq[String]): String =
    filters.flatMap { f =>
      try { spark.sql(s"SELECT * FROM persist.${shard.name} WHERE $f").queryExecution.toRdd.count(); None }
      catch { case NonFatal(e) => Some(s"\n  $f: ${firstLine(e)}") }
    }.mkString

  /** The canonical rows of each branch of a [[query]], sorted. */
  private def byBranch(df: DataFrame, schema: StructType): Map[Int, Seq[String]] =
    internalRows(df).groupBy(_.getInt(0)).map { case (b, rows) => b -> rows.map(Canonical.row(_, schema, offset = 1)).sorted }

  /** Stats of every part against its file, and the parts table against the shard's state. */
  private def checkStats(shard: GeneratedShard, handle: ShardHandle, report: Report): Unit = report.attempt("stats") {
    val state = handle.state
    val columns = state.schema.columns
    val parts = state.parts.toIndexedSeq
    val tableRows = spark.table(SessionShards.partsTable(shard.name)).collect().map(r => r.getAs[String]("key") -> r).toMap
    val files = spark.read.parquet(parts.map(p => handle.partPath(p).toString): _*)
    if (!DataType.equalsIgnoreNullability(files.schema, shard.schema)) {
      report.mismatch(s"a part read alone has schema ${files.schema.toDDL}, not the shard's")
    }
    val fileRows = internalRows(files.select(col("_metadata.file_path") +: shard.schema.fieldNames.toSeq.map(n =>
      col(RandomPredicates.quote(n))): _*)).groupBy(r => new Path(r.getUTF8String(0).toString).toUri.getPath)
    val recount = new StatsRecount(shard.writeSettings(PersistConf.StringBoundChars.key).toInt)
    parts.foreach { part =>
      val rows = fileRows.getOrElse(handle.partPath(part).toUri.getPath, Nil)
      val stats = part.stats.getOrElse(throw new IllegalStateException(s"part ${part.key} has no stats"))
      report.stats += 1
      if (rows.size != part.rowCount || stats.rowCount != part.rowCount) {
        report.mismatch(s"part ${part.key}: ${rows.size} rows in its file, ${part.rowCount} in its metadata")
      }
      val table = PartsTableRow(tableRows(part.key), columns)
      if (table.trimmed != stats.trimmed) {
        report.mismatch(s"part ${part.key}: stats_trimmed ${table.trimmed} but the state says ${stats.trimmed}")
      }
      columns.zipWithIndex.foreach { case (c, i) =>
        val trimmed = stats.trimmed(c.id)
        (table.columns.get(c.id), stats.columns.get(c.id)) match {
          case (Some(shown), Some(kept)) =>
            val values = rows.map(r => if (r.isNullAt(i + 1)) null else r.get(i + 1, c.dataType))
            recount.compare(s"part ${part.key}, column '${c.name}'", c.dataType, values, shown.copy(nested = kept.nested), trimmed)
              .foreach(report.mismatch)
          case (None, None) if trimmed =>
          case (shown, kept) =>
            report.mismatch(s"part ${part.key}, column '${c.name}': parts table shows $shown, state holds $kept, trimmed: $trimmed")
        }
      }
    }
    report.stats += recount.checked
    report.parts += parts.size
  }

  private def dataFrame(schema: StructType, rows: Seq[Row], partitions: Int): DataFrame =
    spark.createDataFrame(spark.sparkContext.parallelize(rows, partitions), schema)

  private def internalRows(df: DataFrame): Seq[InternalRow] =
    df.queryExecution.executedPlan.executeCollect().toSeq

  private def firstLine(e: Throwable): String =
    s"${e.getClass.getSimpleName}: ${String.valueOf(e.getMessage).linesIterator.find(_.trim.nonEmpty).getOrElse("")}"

  /** Counts and mismatches of one shard. */
  private final class Report(shard: GeneratedShard) {
    var values, stats, parts, partsPruned = 0L
    var features = Set.empty[String]
    private val mismatches = Seq.newBuilder[String]
    private var count = 0

    def clean: Boolean = count == 0

    def mismatch(what: String): Unit = {
      count += 1
      if (count <= 20) mismatches += s"[${shard.name}] $what"
    }

    def failed(what: String, e: Throwable): Unit = mismatch(s"$what: ${firstLine(e)}")

    /** Runs `body`; a failure is a mismatch. Whether it succeeded. */
    def attempt(what: String)(body: => Unit): Boolean =
      try { body; true } catch { case NonFatal(e) => failed(s"$what failed", e); false }

    def compareRows(what: String, expected: Seq[String], actual: Seq[String]): Unit =
      if (expected != actual) {
        val missing = expected.diff(actual)
        val extra = actual.diff(expected)
        mismatch(s"$what: ${actual.size} rows, expected ${expected.size}; missing ${missing.size} " +
          s"${missing.take(2).mkString("[", "; ", "]")}, unexpected ${extra.size} ${extra.take(2).mkString("[", "; ", "]")}")
      }

    def outcome(rows: Int, filters: Int): RoundTripOutcome = {
      val found = mismatches.result()
      RoundTripOutcome(schemas = 1, batches = shard.batches.size, rows = rows, columns = shard.schema.length, values = values, stats = stats,
        predicates = filters, parts = parts, partsPruned = partsPruned, features = features, mismatchCount = count,
        mismatches = if (found.isEmpty) Nil else s"${shard.describe}:" +: found.map("  " + _))
    }
  }
}
