package sparkpersist.catalyst

import org.apache.spark.internal.Logging
import org.apache.spark.sql.internal.SQLConf

import sparkpersist.PersistConf
import sparkpersist.shard.ShardState

/**
 * The times a query reads its persist shards as of, and its one `mz_now()`.
 *
 * @param asOf the as-of of each shard the query reads, by name (`None`: the shard holds no complete
 *             time yet, and reads as empty)
 * @param now  `mz_now()`: one value for the whole query, used alike by pruning and by row filtering
 */
final case class QueryAsOf(asOf: Map[String, Option[Long]], now: Option[Long])

object QueryAsOf extends Logging {

  /**
   * The as-ofs of a query over `shards`:
   *  - [[PersistConf.AsOf]] set: every shard as of it, and `mz_now()` is it;
   *  - [[PersistConf.ReadConsistency]] `latest` (the default): each shard as of its own latest
   *    complete time (`upper - 1`), as every Spark table format reads each table's latest snapshot,
   *    so no committed row of one shard is hidden because another shard is older. `mz_now()` is the
   *    latest of those times: persist writers keep an idle shard's upper moving with empty appends,
   *    so that a query can read every input at one time; a shard that stopped at an earlier upper
   *    reads here as if it had (nothing happened in it since), and `mz_now()` is the time every
   *    input is then complete at, as in Materialize;
   *  - `consistent`: every shard as of the latest time complete in all that hold any
   *    (`min(upper) - 1`), as before; each shard behind another is named in a warning with its
   *    upper, since its lag hides the others' newer rows.
   */
  def resolve(conf: SQLConf, shards: Seq[ShardState]): QueryAsOf = {
    val latest = shards.map(s => s.name -> (if (s.upper > 0) Some(s.upper - 1) else None)).toMap
    PersistConf.AsOf.get(conf) match {
      case Some(t) => QueryAsOf(latest.map { case (name, _) => name -> Some(t) }, Some(t))
      case None if PersistConf.ReadConsistency.get(conf) == "consistent" =>
        val common = latest.values.flatten.minOption
        common.foreach(t => warnBehind(shards, t))
        QueryAsOf(latest.map { case (name, own) => name -> own.flatMap(_ => common) }, common)
      case None => QueryAsOf(latest, latest.values.flatten.maxOption)
    }
  }

  private def warnBehind(shards: Seq[ShardState], common: Long): Unit = {
    val ahead = shards.filter(_.upper - 1 > common)
    if (ahead.nonEmpty) {
      shards.filter(s => s.upper > 0 && s.upper - 1 == common).map(_.name).distinct.foreach { name =>
        logWarning(s"Shard '$name' (upper ${common + 1}) holds the query's consistent as-of back: the rows of " +
          s"${ahead.map(s => s"'${s.name}' (upper ${s.upper})").distinct.mkString(", ")} committed at or after " +
          s"${common + 1} are not read. Unset ${PersistConf.ReadConsistency.key} to read each shard at its latest.")
      }
    }
  }

  /** `mz_now()` as a timestamp (microseconds): the query's time, or the current time without one. */
  def mzNowMicros(now: Option[Long]): Long =
    Math.multiplyExact(now.getOrElse(System.currentTimeMillis()), 1000L)
}
