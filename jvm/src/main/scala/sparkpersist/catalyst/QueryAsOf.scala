package sparkpersist.catalyst

import org.apache.spark.internal.Logging
import org.apache.spark.sql.internal.SQLConf

import sparkpersist.PersistConf
import sparkpersist.catalog.PersistTable
import sparkpersist.plan.AsOf

/**
 * The times a query reads its persist tables as of, and its one `mz_now()`.
 *
 * @param fixed  the session's [[PersistConf.AsOf]], every table's as-of when set
 * @param common in [[PersistConf.ReadConsistency]] `consistent`, the time every table is read as of
 * @param uppers each shard's upper, as the query saw it
 * @param now    `mz_now()`: one value for the whole query, used alike by pruning and by row filtering
 */
final case class QueryAsOf(fixed: Option[Long], common: Option[Long], uppers: Map[String, Long], now: Option[Long]) {

  /** The as-of of `table`: its time travel, else the session's as-of, else as the mode says; `None`: nothing complete. */
  def of(table: PersistTable): Option[Long] = table.travel.orElse(fixed).orElse {
    AsOf.latest(uppers.getOrElse(table.shard.name, table.shard.state.upper)).map(latest => common.getOrElse(latest))
  }
}

object QueryAsOf extends Logging {

  /**
   * The as-ofs of a query over `tables`:
   *  - a table read `TIMESTAMP AS OF` or `VERSION AS OF` is read as of that ([[PersistTable.travel]]);
   *  - [[PersistConf.AsOf]] set: every other table as of it, and `mz_now()` is it;
   *  - [[PersistConf.ReadConsistency]] `latest` (the default): each shard as of its own latest
   *    complete time (`upper - 1`), as every Spark table format reads each table's latest snapshot,
   *    so no committed row of one shard is hidden because another shard is older. `mz_now()` is the
   *    latest time read: persist writers keep an idle shard's upper moving with empty appends, so
   *    that a query can read every input at one time; a shard that stopped at an earlier upper
   *    reads here as if it had (nothing happened in it since), and `mz_now()` is the time every
   *    input is then complete at, as in Materialize;
   *  - `consistent`: every shard as of the latest time complete in all that hold any
   *    (`min(upper) - 1`), as before; each shard behind another is named in a warning with its
   *    upper, since its lag hides the others' newer rows.
   */
  def resolve(conf: SQLConf, tables: Seq[PersistTable]): QueryAsOf = {
    val current = tables.filter(_.travel.isEmpty).map(t => t.shard.name -> t.shard.state.upper).toMap
    val travels = tables.flatMap(_.travel)
    val latest = current.values.filter(_ > 0).map(_ - 1)
    PersistConf.AsOf.get(conf) match {
      case Some(t) => QueryAsOf(Some(t), None, current, Some(t))
      case None if PersistConf.ReadConsistency.get(conf) == "consistent" =>
        val common = latest.minOption
        common.foreach(t => warnBehind(current, t))
        QueryAsOf(None, common, current, common.orElse(travels.maxOption))
      case None => QueryAsOf(None, None, current, (latest ++ travels).maxOption)
    }
  }

  private def warnBehind(uppers: Map[String, Long], common: Long): Unit = {
    val ahead = uppers.filter(_._2 - 1 > common)
    if (ahead.nonEmpty) {
      uppers.filter { case (_, upper) => upper > 0 && upper - 1 == common }.keys.toSeq.sorted.foreach { name =>
        logWarning(s"Shard '$name' (upper ${common + 1}) holds the query's consistent as-of back: the rows of " +
          s"${ahead.toSeq.sorted.map { case (n, u) => s"'$n' (upper $u)" }.mkString(", ")} committed at or after " +
          s"${common + 1} are not read. Unset ${PersistConf.ReadConsistency.key} to read each shard at its latest.")
      }
    }
  }

  /** `mz_now()` as a timestamp (microseconds): the query's time, or the current time without one. */
  def mzNowMicros(now: Option[Long]): Long =
    Math.multiplyExact(now.getOrElse(System.currentTimeMillis()), 1000L)
}
