package sparkpersist.api

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SparkSession}

import sparkpersist.catalog.SessionShards
import sparkpersist.cluster.ClusterColumns
import sparkpersist.index.IndexColumns
import sparkpersist.scan.ScanReports
import sparkpersist.schema.{JsonColumns, NestedNullability, ShardSchema}
import sparkpersist.write.{ShardWriter, WriteOptions}

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
   * Writes `df` as one batch of `shard`, creating the shard from `df`'s schema (without the
   * time/diff columns) on first write. A shard created here is dropped again if that first
   * write fails and no other writer has committed to it meanwhile
   * ([[sparkpersist.shard.ShardStore.dropIfUnwritten]]), so a failed write leaves nothing behind
   * and never takes another writer's batch with it. `jsonColumns` (null: none) names string
   * columns holding JSON text: recorded in the schema of a shard created here, checked against
   * it otherwise (see [[sparkpersist.schema.JsonColumns]]). With `mergeSchema`, the columns of `df`
   * an existing shard lacks are added to it first ([[sparkpersist.write.SchemaMerge]]). `clusterBy`
   * (null: not given) names the clustering columns of a shard created here; an existing shard must
   * already be clustered by exactly these (change them with `ALTER TABLE … CLUSTER BY`).
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
    val store = SessionShards.store(df.sparkSession)
    val clustering = Option(clusterBy).map(_.asScala.toSeq)
    val order = Option(orderBy).map(_.asScala.toSeq)
    val json = Option(jsonColumns).map(_.asScala.toSeq).getOrElse(Nil)
    val created = !store.exists(shard)
    val handle =
      if (created) {
        val dataFields = df.schema.fields.filterNot { f =>
          Seq(Option(timeCol), Option(diffCol)).flatten.exists(_.equalsIgnoreCase(f.name))
        }
        // A DataFrame's nullability is how its columns were built, not a declaration: shard
        // columns admit nulls at every depth (NestedNullability).
        val struct = JsonColumns.declare(shard,
          NestedNullability.relaxedSchema(org.apache.spark.sql.types.StructType(dataFields)), json)
        val context = s"Cannot create shard '$shard'"
        store.create(shard, ClusterColumns.set(ShardSchema.fromStruct(struct, order.getOrElse(Nil), context),
          clustering.getOrElse(Nil), context))
      } else {
        val h = store.open(shard)
        order.foreach { o =>
          val existing = h.state.schema.orderBy
          require(o.map(_.toLowerCase) == existing.map(_.toLowerCase),
            s"Shard '$shard' is ordered by (${existing.mkString(", ")}); order_by is fixed when a " +
              s"shard is created and cannot become (${o.mkString(", ")}). Omit order_by.")
        }
        clustering.foreach { c =>
          val existing = ClusterColumns.render(h.state.schema)
          require(c.map(_.toLowerCase) == ClusterColumns.parse(existing).map(_.toLowerCase),
            s"Shard '$shard' is clustered by (${existing.replace(",", ", ")}), not (${c.mkString(", ")}); change its " +
              s"clustering with ALTER TABLE persist.$shard CLUSTER BY (...) or set_cluster_by(), or omit cluster_by.")
        }
        h
      }
    val options = WriteOptions(Option(timeCol), Option(diffCol), Option(maxRowsPerPart).map(_.longValue),
      jsonColumns = json, keepStats = Option(keepStats).map(_.asScala.toSeq).getOrElse(Nil),
      indexColumns = Option(indexColumns).map(_.asScala.toSeq).getOrElse(Nil), mergeSchema = mergeSchema)
    val batch =
      try ShardWriter.write(df, handle, options)
      catch {
        case e: Throwable =>
          if (created) store.dropIfUnwritten(shard)
          throw e
      }
    val parts = batch.parts.toSeq
    Map[String, Any](
      "id" -> batch.id,
      "lower" -> batch.lower,
      "upper" -> batch.upper,
      "parts" -> parts.size,
      "rows" -> parts.map(_.rowCount).sum).asJava
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
