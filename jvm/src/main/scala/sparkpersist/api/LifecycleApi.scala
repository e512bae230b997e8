package sparkpersist.api

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{Row, SparkSession}

import sparkpersist.compact.{CompactOptions, GcOptions, Lifecycle, LifecycleResult}

/**
 * The py4j facade of the shard lifecycle (compaction and garbage collection): plain Java types in
 * and out; nulls stand for "the session's setting". Each call returns its summary as an ordered map.
 */
object LifecycleApi {

  def compact(
      spark: SparkSession,
      shard: String,
      retentionMs: java.lang.Long,
      fanIn: java.lang.Integer,
      targetBytes: java.lang.Long,
      windowMs: java.lang.Long,
      keepStats: java.util.List[String],
      gc: java.lang.Boolean,
      cluster: Boolean): java.util.Map[String, Any] =
    summary(Lifecycle.compact(spark, shard, CompactOptions(
      retentionMs = Option(retentionMs).map(_.longValue),
      fanIn = Option(fanIn).map(_.intValue),
      targetBytes = Option(targetBytes).map(_.longValue),
      windowMs = Option(windowMs).map(_.longValue),
      keepStats = Option(keepStats).map(_.asScala.toSeq).getOrElse(Nil),
      gc = Option(gc).map(_.booleanValue),
      recluster = cluster)))

  def gc(spark: SparkSession, shard: String, keepVersions: java.lang.Integer, graceMs: java.lang.Long)
      : java.util.Map[String, Any] =
    summary(Lifecycle.gc(spark, shard, GcOptions(Option(keepVersions).map(_.intValue), Option(graceMs).map(_.longValue))))

  def dropBatch(spark: SparkSession, shard: String, batchOrPart: String): java.util.Map[String, Any] =
    summary(Lifecycle.dropBatch(spark, shard, batchOrPart))

  private def summary(result: LifecycleResult): java.util.Map[String, Any] = {
    val map = new java.util.LinkedHashMap[String, Any]()
    result.fields.foreach(f => map.put(f.name, plain(f.value)))
    map
  }

  /** A result value py4j hands over as Python lists and dicts: sequences as lists, structs as ordered maps. */
  private def plain(value: Any): Any = value match {
    case row: Row =>
      val map = new java.util.LinkedHashMap[String, Any]()
      row.schema.fieldNames.zipWithIndex.foreach { case (n, i) => map.put(n, plain(row.get(i))) }
      map
    case values: Seq[_] => values.map(plain).asJava
    case other => other
  }
}
