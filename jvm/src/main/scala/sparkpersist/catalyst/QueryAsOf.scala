package sparkpersist.catalyst

import org.apache.spark.sql.internal.SQLConf

import sparkpersist.PersistConf
import sparkpersist.shard.ShardState

/** The as-of of a query: what its persist scans read and what `mz_now()` evaluates to. */
object QueryAsOf {

  /**
   * [[PersistConf.AsOf]] when set; else the latest time complete in every scanned shard that
   * holds any (`min(upper) - 1`); `None` when no scanned shard holds a complete time.
   */
  def resolve(conf: SQLConf, shards: Seq[ShardState]): Option[Long] =
    PersistConf.AsOf.get(conf).orElse {
      val uppers = shards.map(_.upper).filter(_ > 0)
      if (uppers.isEmpty) None else Some(uppers.min - 1)
    }

  /** `mz_now()` as a timestamp (microseconds): the as-of, or the current time without one. */
  def mzNowMicros(asOf: Option[Long]): Long =
    Math.multiplyExact(asOf.getOrElse(System.currentTimeMillis()), 1000L)
}
