package sparkpersist.reliability

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession

import sparkpersist.shard.{ShardHandle, ShardStore}

/**
 * What a reliability run checks on a shard of `(k, v)` batches whose `v`s name their writer and
 * batch (`<tag>b<i>-<j>`): its snapshot, read as users read it, grouped by batch, and the part
 * files no state version refers to.
 */
object ShardAudit {

  /** The rows `(i * 10 + j, "<tag>b<i>-<j>")` of batch i of writer `tag`. */
  def batch(tag: String, i: Int): Seq[(Long, String)] = (0 until 5).map(j => (i * 10L + j, s"${tag}b$i-$j"))

  /** The rows grouped by batch (`"<tag>b<i>"`). */
  def byBatch(rows: Seq[(Long, String)]): Map[String, Seq[(Long, String)]] = rows.groupBy(_._2.split('-').dropRight(1).mkString("-"))

  /** Part files under the shard that no state version from `from` on refers to. */
  def unreferencedParts(shard: ShardHandle, from: Long = 0L): Seq[String] = {
    val referenced = shard.log.statesFrom(from).flatMap(_.batches.flatMap(_.parts.map(_.key))).toSet
    partFiles(shard).filterNot(referenced)
  }

  /** The keys of the files under the shard's parts directory. */
  def partFiles(shard: ShardHandle): Seq[String] = {
    val dir = new Path(shard.dir, ShardHandle.PartsDir)
    if (!shard.fs.exists(dir)) Nil
    else {
      val it = shard.fs.listFiles(dir, true)
      Iterator.continually(it).takeWhile(_.hasNext).map(_.next().getPath)
        .filterNot(_.getName.endsWith(".crc")).map(shard.relativeKey).toSeq.sorted
    }
  }
}

/**
 * Where a run's shards live: the store's root (any file system URI: local disk, HDFS) and the
 * catalog of the session that reads them there.
 */
final case class AuditedStore(root: String, catalog: String) {
  def store(spark: SparkSession): ShardStore = new ShardStore(root, spark.sessionState.newHadoopConf())

  /** The snapshot's rows, as `(k, v)` pairs, duplicates kept, read as users read it. */
  def rows(spark: SparkSession, shard: String): Seq[(Long, String)] =
    spark.sql(s"SELECT k, v FROM $catalog.$shard").collect().toSeq.map(r => (r.getLong(0), r.getString(1)))
}

object AuditedStore {
  /** Shards in a local directory, read through the catalog `persist`. */
  def apply(dir: java.io.File): AuditedStore = AuditedStore(dir.toURI.toString, "persist")
}
