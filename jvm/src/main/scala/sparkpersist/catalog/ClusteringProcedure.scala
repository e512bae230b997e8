package sparkpersist.catalog

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.PersistConf
import sparkpersist.cluster.{AutoClustering, ClusterColumns, FilterWorkload}
import sparkpersist.shard.ShardStore

/**
 * `CALL persist.system.clustering('events')`: the evidence automatic clustering chooses from and
 * its choice. One row per column the recorded queries' filters constrained: scans, parts they
 * could have read and read, the column's overlap across parts, its score, whether the choice
 * takes it, and the table's clustering (`auto`, named columns, or none).
 */
private[catalog] final class ClusteringProcedure(store: ShardStore) extends RowsProcedure("clustering",
    "The columns a persist table's queries filtered on, the parts those scans read, and which of them " +
      "automatic clustering (sparkpersist.clusterBy = 'auto') chooses.") {

  private val schema = StructType(Seq(
    StructField("column", StringType, nullable = false), StructField("scans", LongType, nullable = false),
    StructField("parts_total", LongType, nullable = false), StructField("parts_read", LongType, nullable = false),
    StructField("overlap", DoubleType, nullable = false), StructField("score", DoubleType, nullable = false),
    StructField("chosen", BooleanType, nullable = false), StructField("cluster_by", StringType, nullable = false)))

  override def parameters(): Array[ProcedureParameter] = Array(ProcedureParameter.in("shard", StringType).build())

  override def result(input: InternalRow): (StructType, Array[InternalRow]) = {
    val shard = store.open(input.getUTF8String(0).toString)
    val state = shard.state
    val maxAge = PersistConf.ClusterWorkloadMs.get(SparkSession.active.sessionState.conf)
    val clusterBy = UTF8String.fromString(ClusterColumns.render(state.schema))
    (schema, AutoClustering.candidates(state, FilterWorkload.evidence(shard, maxAge)).map { c =>
      InternalRow(UTF8String.fromString(c.name), c.use.scans, c.use.partsTotal, c.use.partsRead, c.overlap, c.score,
        c.chosen, clusterBy)
    }.toArray)
  }
}
