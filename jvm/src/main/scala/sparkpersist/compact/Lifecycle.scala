package sparkpersist.compact

import org.apache.spark.sql.{SparkSession => ApiSession}
import org.apache.spark.sql.classic.SparkSession

import sparkpersist.PersistConf
import sparkpersist.catalog.SessionShards
import sparkpersist.shard.{ShardHandle, ShardStore}
import sparkpersist.write.WriteInput

/**
 * Options of one [[Lifecycle.compact]] call; each absent one comes from the session's
 * configuration (`spark.sparkpersist.compact.*`, `spark.sparkpersist.retentionMs`,
 * `spark.sparkpersist.gc.*`).
 *
 * @param keepStats columns whose part stats the stats budget trims last (as the writer's option)
 * @param gc        garbage-collect the shard afterwards (default `spark.sparkpersist.compact.gc`)
 * @param recluster lay every window of a clustered shard out again, the open one too as its batches are
 *                  now (`cluster => true`); later batches of the open window are laid out when it seals
 */
final case class CompactOptions(
    retentionMs: Option[Long] = None,
    fanIn: Option[Int] = None,
    targetBytes: Option[Long] = None,
    windowMs: Option[Long] = None,
    keepStats: Seq[String] = Nil,
    gc: Option[Boolean] = None,
    recluster: Boolean = false)

/** Options of one [[Lifecycle.gc]] call; absent ones come from `spark.sparkpersist.gc.*`. */
final case class GcOptions(keepVersions: Option[Int] = None, graceMs: Option[Long] = None)

/**
 * The shard lifecycle from Scala: compaction at since and garbage collection of the shards of
 * the session's `persist` catalog (SQL: `CALL persist.system.compact('events')`).
 *
 * {{{
 *   Lifecycle.compact(spark, "events", CompactOptions(retentionMs = Some(30L * 86400000)))
 *   Lifecycle.gc(spark, "events")
 *   Lifecycle.dropBatch(spark, "events", "<batch id, or the path of one of its parts>")
 * }}}
 */
object Lifecycle {

  def compact(spark: ApiSession, shard: String, options: CompactOptions = CompactOptions()): CompactionResult =
    compact(spark, SessionShards.store(spark), shard, options)

  def gc(spark: ApiSession, shard: String, options: GcOptions = GcOptions()): GcResult =
    gc(spark, SessionShards.store(spark), shard, options)

  def dropBatch(spark: ApiSession, shard: String, batchOrPart: String): DroppedBatch =
    dropBatch(SessionShards.store(spark), shard, batchOrPart)

  /** Compacts shard `shard` of `store` (the catalog's own store, for its procedures). */
  def compact(spark: ApiSession, store: ShardStore, shard: String, options: CompactOptions): CompactionResult = {
    val session = spark.asInstanceOf[SparkSession]
    val conf = session.sessionState.conf
    val handle = store.open(shard)
    val defaults = CompactionSettings.of(conf)
    val settings = CompactionSettings(
      fanIn = options.fanIn.getOrElse(defaults.fanIn),
      targetBytes = options.targetBytes.getOrElse(defaults.targetBytes),
      windowMs = options.windowMs.getOrElse(defaults.windowMs),
      retentionMs = options.retentionMs.orElse(defaults.retentionMs),
      cluster = defaults.cluster.copy(reclusterBefore = if (options.recluster) Some(System.currentTimeMillis()) else None),
      mergeAged = defaults.mergeAged)
    val keepStats = WriteInput.keepStatsIds(shard, handle.state.schema, options.keepStats)
    val gc = if (options.gc.getOrElse(PersistConf.CompactGc.get(conf))) Some(GcSettings.of(conf)) else None
    Compactor.compact(session, handle, settings, keepStats = keepStats, gc = gc)
  }

  /** Garbage-collects shard `shard` of `store`. */
  def gc(spark: ApiSession, store: ShardStore, shard: String, options: GcOptions): GcResult = {
    val defaults = GcSettings.of(spark.asInstanceOf[SparkSession].sessionState.conf)
    GarbageCollector.collect(store.open(shard), GcSettings(
      options.keepVersions.getOrElse(defaults.keepVersions), options.graceMs.getOrElse(defaults.graceMs)))
  }

  /** Drops the batch of shard `shard` of `store` that `batchOrPart` names ([[BatchRemoval]]). */
  def dropBatch(store: ShardStore, shard: String, batchOrPart: String): DroppedBatch =
    BatchRemoval.drop(store.open(shard), batchOrPart)

  /** The automatic compaction after a write to `shard`, when the session turns it on. */
  private[compact] def afterWrite(spark: SparkSession, shard: ShardHandle): Option[CompactionResult] = {
    val conf = spark.sessionState.conf
    if (!PersistConf.AutoCompact.get(conf)) None
    else {
      val gc = if (PersistConf.CompactGc.get(conf)) Some(GcSettings.of(conf)) else None
      Some(Compactor.compact(spark, shard, CompactionSettings.of(conf),
        budgetBytes = Some(PersistConf.AutoCompactMaxBytes.get(conf)), maxRounds = 1, gc = gc))
    }
  }
}
