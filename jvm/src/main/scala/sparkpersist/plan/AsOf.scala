package sparkpersist.plan

import org.apache.spark.sql.internal.SQLConf

import sparkpersist.PersistConf
import sparkpersist.shard.ShardState

/** The time a batch read of a shard sees: `since <= asOf < upper`. */
object AsOf {

  /**
   * The as-of of a read: the session's [[PersistConf.AsOf]], else `upper - 1` (the latest
   * complete time). `None` for a shard that holds no complete time yet (upper 0) when no as-of
   * is configured: such a read sees no rows. Throws [[InvalidAsOf]] when the time is outside
   * `[since, upper)`.
   */
  def resolve(state: ShardState, conf: SQLConf): Option[Long] =
    PersistConf.AsOf.get(conf) match {
      case None if state.upper <= 0 => None
      case None => Some(state.upper - 1)
      case Some(t) => Some(check(state, t))
    }

  /** `t` when the shard can answer a read as of `t`, else an [[InvalidAsOf]]. */
  def check(state: ShardState, t: Long): Long = {
    if (t < state.since || t >= state.upper) throw new InvalidAsOf(state.name, t, state.since, state.upper)
    t
  }
}

/** A read asked for a time the shard cannot answer. */
final class InvalidAsOf(val shard: String, val asOf: Long, val since: Long, val upper: Long)
  extends IllegalArgumentException(InvalidAsOf.message(shard, asOf, since, upper))

object InvalidAsOf {
  private def message(shard: String, asOf: Long, since: Long, upper: Long): String = {
    val reason =
      if (asOf < since) s"history before since = $since has been compacted"
      else s"only times before upper = $upper are complete"
    val fix =
      if (upper > since) s"Set ${PersistConf.AsOf.key} to a time in [$since, ${upper - 1}], or unset it to read the latest."
      else s"The shard holds no complete time yet; unset ${PersistConf.AsOf.key} to read it as empty."
    s"Cannot read shard '$shard' as of $asOf: $reason (since = $since, upper = $upper). $fix"
  }
}
