package sparkpersist.api

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.types.StructType

import sparkpersist.cluster.ClusterColumns
import sparkpersist.errors.PersistErrors
import sparkpersist.schema.{JsonColumns, NestedNullability, ShardSchema}
import sparkpersist.shard.{BatchMeta, ShardHandle, ShardStore}
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * `sparkpersist.write`, once for both ways Python reaches the JVM: the py4j facade
 * ([[PythonApi.write]], classic sessions) and `CALL persist.system.write` ([[WriteProcedure]],
 * Spark Connect and SQL clients). Both commit through [[ShardWriter]] (and so [[sparkpersist.write.BatchCommit]]:
 * the commit time, the compare-and-set on the upper) and return the batch that commit made, so no
 * caller ever has to work out afterwards which batch was its own.
 */
object ShardWrites {

  /**
   * Writes `df` as one batch of `shard` of `store`, creating the shard from `df`'s schema (without
   * the time/diff columns) on first write. A shard created here is dropped again if that first
   * write fails and no other writer has committed to it meanwhile
   * ([[sparkpersist.shard.ShardStore.dropIfUnwritten]]), so a failed write leaves nothing behind
   * and never takes another writer's batch with it. `options.jsonColumns` is recorded in the schema
   * of a shard created here, checked against it otherwise ([[sparkpersist.schema.JsonColumns]]).
   * `orderBy` and `clusterBy` (None: not given) are fixed for a shard created here; an existing
   * shard must already have exactly these (its clustering changes with `ALTER TABLE … CLUSTER BY`).
   * Returns the committed batch (empty, at the shard's upper, for a DataFrame of no rows).
   */
  def write(store: ShardStore, df: DataFrame, shard: String, options: WriteOptions,
      orderBy: Option[Seq[String]], clusterBy: Option[Seq[String]]): BatchMeta = {
    val created = !store.exists(shard)
    val handle = if (created) create(store, df, shard, options, orderBy, clusterBy) else existing(store, shard, orderBy, clusterBy)
    try ShardWriter.write(df, handle, options)
    catch {
      case e: Throwable =>
        if (created) store.dropIfUnwritten(shard)
        throw e
    }
  }

  private def create(store: ShardStore, df: DataFrame, shard: String, options: WriteOptions,
      orderBy: Option[Seq[String]], clusterBy: Option[Seq[String]]): ShardHandle = {
    val special = options.timeCol.toSeq ++ options.diffCol
    val dataFields = df.schema.fields.filterNot(f => special.exists(_.equalsIgnoreCase(f.name)))
    // A DataFrame's nullability is how its columns were built, not a declaration: shard
    // columns admit nulls at every depth (NestedNullability).
    val struct = JsonColumns.declare(shard, NestedNullability.relaxedSchema(StructType(dataFields)), options.jsonColumns)
    val context = s"Cannot create shard '$shard'"
    store.create(shard, ClusterColumns.set(ShardSchema.fromStruct(struct, orderBy.getOrElse(Nil), context),
      clusterBy.getOrElse(Nil), context))
  }

  private def existing(store: ShardStore, shard: String, orderBy: Option[Seq[String]],
      clusterBy: Option[Seq[String]]): ShardHandle = {
    val handle = store.open(shard)
    orderBy.foreach { o =>
      val existing = handle.state.schema.orderBy
      if (o.map(_.toLowerCase) != existing.map(_.toLowerCase)) {
        throw PersistErrors.invalidWrite(shard, s"it is ordered by (${existing.mkString(", ")}); order_by is fixed " +
          s"when a shard is created and cannot become (${o.mkString(", ")}). Omit order_by.")
      }
    }
    clusterBy.foreach { c =>
      val existing = ClusterColumns.render(handle.state.schema)
      if (c.map(_.toLowerCase) != ClusterColumns.parse(existing).map(_.toLowerCase)) {
        throw PersistErrors.invalidWrite(shard, s"it is clustered by (${existing.replace(",", ", ")}), not " +
          s"(${c.mkString(", ")}); change its clustering with ALTER TABLE persist.$shard CLUSTER BY (...) or " +
          "set_cluster_by(), or omit cluster_by.")
      }
    }
    handle
  }
}
