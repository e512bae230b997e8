package sparkpersist.cluster

import org.apache.spark.sql.catalyst.util.TypeUtils

import sparkpersist.shard.ShardState
import sparkpersist.util.Prefix

/**
 * One column's case for automatic clustering: what the scans whose filters constrained it read
 * (`use`), how unseparated its values are across the shard's parts (`overlap`: the mean share of
 * the parts whose bounds meet a part's, 1 when every part spans every value, about 1/parts for a
 * column that rises with time), and the `score` they give: the parts those scans read, times the
 * share of them clustering could still separate.
 */
final case class ClusterCandidate(columnId: Int, name: String, use: ColumnUse, overlap: Double, score: Double,
    chosen: Boolean)

/**
 * Clustering chosen from the workload (`sparkpersist.clusterBy = 'auto'`): the columns whose
 * filters read the most parts that their values' overlap across parts kept from being skipped.
 * A column that time already separates (an event time, an id rising with time) scores little
 * however often it is filtered on; a column of a type the curve cannot order is never chosen.
 * At most [[MaxColumns]] columns, each scoring at least [[MinShare]] of the best.
 */
object AutoClustering {
  /** Most columns chosen: past three, each separates too little (a curve's parts are boxes). */
  val MaxColumns = 3

  /** A column is chosen only if it scores at least this share of the best column's score. */
  val MinShare = 0.25

  /** The candidates of `state` given `evidence` ([[FilterWorkload.evidence]]), best first, the chosen marked. */
  def candidates(state: ShardState, evidence: Map[Int, ColumnUse]): Seq[ClusterCandidate] = {
    val scored = evidence.toSeq.flatMap { case (id, use) =>
      state.schema.columnById(id).filter(c => ClusterColumns.supports(c.dataType)).map { c =>
        val o = overlap(state, id, c.dataType)
        (id, c.name, use, o, use.partsRead * o)
      }
    }.sortBy { case (id, _, _, _, score) => (-score, id) }
    val best = scored.headOption.map(_._5).getOrElse(0.0)
    scored.zipWithIndex.map { case ((id, name, use, o, score), rank) =>
      ClusterCandidate(id, name, use, o, score, rank < MaxColumns && score > 0 && score >= MinShare * best)
    }
  }

  /** The columns chosen (ids, in column order). */
  def choose(state: ShardState, evidence: Map[Int, ColumnUse]): IndexedSeq[Int] = {
    val chosen = candidates(state, evidence).filter(_.chosen).map(_.columnId).toSet
    state.schema.columns.map(_.id).filter(chosen).toIndexedSeq
  }

  /**
   * The mean share of the parts whose bounds meet a part's bounds for column `id`: with bounds
   * sorted, the parts wholly above or below a part are counted by binary search. A part without
   * bounds for the column (no stats, trimmed, all null) meets every part.
   */
  private[cluster] def overlap(state: ShardState, id: Int, dataType: org.apache.spark.sql.types.DataType): Double = {
    val parts = state.parts.toIndexedSeq
    if (parts.size <= 1) 1.0
    else {
      val ordering = TypeUtils.getInterpretedOrdering(dataType)
      val bounds = parts.map(_.stats.flatMap(_.columns.get(id)).flatMap(c => for (l <- c.lower; u <- c.upper) yield (l, u)))
      val known = bounds.flatten
      val lowers = known.map(_._1).sorted(ordering)
      val uppers = known.map(_._2).sorted(ordering)
      val unknown = parts.size - known.size
      val met = bounds.map {
        case None => parts.size.toDouble
        case Some((l, u)) =>
          // Known parts wholly below (upper < l) or wholly above (lower > u) do not meet this one.
          val below = Prefix.length(uppers.size)(i => ordering.lt(uppers(i), l))
          val above = known.size - Prefix.length(lowers.size)(i => ordering.lteq(lowers(i), u))
          (known.size - below - above + unknown).toDouble
      }
      met.sum / parts.size / parts.size
    }
  }
}
