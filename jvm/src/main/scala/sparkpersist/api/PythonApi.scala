package sparkpersist.api

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SparkSession}

import sparkpersist.catalog.SessionShards
import sparkpersist.index.IndexColumns
import sparkpersist.scan.ScanReports
import sparkpersist.write.WriteOptions

/**
 * The facade Python calls over py4j: plain Java types in and out, all logic stays in the JVM.
 * Nulls stand for "not given".
 */
object PythonApi {

  /** [[write]] without index columns, schema merging or clustering (callers from before `index_columns`). */
  def write(
      df: DataFrame,
      shard: String,
      timeCol: String,
      diffCol: String,
      maxRowsPerPart: java.lang.Long,
      orderBy: java.util.List[String],
      jsonColumns: java.util.List[String],
      keepStats: java.util.List[String]): java.util.Map[String, Any] =
    write(df, shard, timeCol, diffCol, maxRowsPerPart, orderBy, jsonColumns, keepStats, null, mergeSchema = false, null)

  /** Declares the registered JVM function `name` monotone ([[MonotoneFunctions.declare]]). */
  def declareMonotone(spark: SparkSession, name: String, direction: String): Unit =
    MonotoneFunctions.declare(spark, name, direction)

  /**
   * Sets the table property [[IndexColumns.Property]] of `shard` to `columns` (null or empty: clears
   * it) in one schema change, as `ALTER TABLE ... SET TBLPROPERTIES` does; returns the property's value.
   */
  def setIndexColumns(spark: SparkSession, shard: String, columns: java.util.List[String]): String = {
    val names = Option(columns).map(_.asScala.toSeq).getOrElse(Nil)
    val state = SessionShards.store(spark).open(shard).log
      .alterSchema(IndexColumns.set(_, names, s"Cannot set the index columns of shard '$shard'"))
    IndexColumns.render(state.schema)
  }

  /** The jar's version (also a cheap "is the jar on the classpath" probe). */
  def version(): String =
    Option(getClass.getPackage.getImplementationVersion).getOrElse("dev")

  /**
   * Writes `df` as one batch of `shard` ([[ShardWrites.write]]) and returns the committed batch's
   * id, bounds, parts and rows. `jsonColumns`, `keepStats` and `indexColumns` null: none; `orderBy`
   * and `clusterBy` null: not given.
   */
  def write(
      df: DataFrame,
      shard: String,
      timeCol: String,
      diffCol: String,
      maxRowsPerPart: java.lang.Long,
      orderBy: java.util.List[String],
      jsonColumns: java.util.List[String],
      keepStats: java.util.List[String],
      indexColumns: java.util.List[String],
      mergeSchema: Boolean,
      clusterBy: java.util.List[String]): java.util.Map[String, Any] = {
    def names(list: java.util.List[String]): Option[Seq[String]] = Option(list).map(_.asScala.toSeq)
    val options = WriteOptions(Option(timeCol), Option(diffCol), Option(maxRowsPerPart).map(_.longValue),
      jsonColumns = names(jsonColumns).getOrElse(Nil), keepStats = names(keepStats).getOrElse(Nil),
      indexColumns = names(indexColumns).getOrElse(Nil), mergeSchema = mergeSchema)
    val batch = ShardWrites.write(SessionShards.store(df.sparkSession), df, shard, options, names(orderBy), names(clusterBy))
    Map[String, Any](
      "id" -> batch.id,
      "lower" -> batch.lower,
      "upper" -> batch.upper,
      "parts" -> batch.partCount,
      "rows" -> batch.rowCount).asJava
  }

  /** The parts table of `shard` (one row per part and column, with stats). */
  def parts(spark: SparkSession, shard: String): DataFrame = {
    SessionShards.store(spark).open(shard) // a clear NoSuchShard error before any SQL
    spark.table(SessionShards.partsTable(shard))
  }

  /** One map per persist scan of the session's latest query (see [[ScanReport.toMap]]; lists as Java lists). */
  def lastScans(spark: SparkSession): java.util.List[java.util.Map[String, Any]] =
    ScanReports.last(spark).map(_.toMap.map {
      case (k, values: Seq[_]) => k -> values.asJava
      case other => other
    }.asJava).asJava

  def shards(spark: SparkSession): java.util.List[String] =
    SessionShards.store(spark).list().asJava
}
