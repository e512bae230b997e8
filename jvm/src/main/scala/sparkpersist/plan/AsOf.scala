package sparkpersist.plan

import org.apache.spark.sql.internal.SQLConf

import sparkpersist.PersistConf
import sparkpersist.errors.{PersistError, PersistThrowable}
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
      case None => latest(state.upper)
      case Some(t) => Some(check(state, t))
    }

  /** The latest complete time of a shard at `upper` (`upper - 1`), `None` when it holds none yet. */
  def latest(upper: Long): Option[Long] = if (upper <= 0) None else Some(upper - 1)

  /**
   * `t` when the shard can answer a read as of `t`, else an [[InvalidAsOf]] telling how to fix
   * it with `setting`: the one check of every as-of (batch reads, time travel, streams' start).
   */
  def check(state: ShardState, t: Long, setting: AsOfSetting = AsOfSetting.Session): Long = {
    if (t < state.since || t >= state.upper) throw new InvalidAsOf(state.name, t, state.since, state.upper, setting)
    t
  }
}

/**
 * Where a read's as-of came from, and how the user picks another, named in an [[InvalidAsOf]]:
 * `what` to set to a time, how to read the `latest` instead, and how to read a shard that holds
 * no complete time yet as `empty`.
 */
final case class AsOfSetting(what: String, latest: String, empty: String)

object AsOfSetting {
  /** The session's [[PersistConf.AsOf]]. */
  val Session: AsOfSetting = AsOfSetting(PersistConf.AsOf.key, "unset it", s"unset ${PersistConf.AsOf.key}")
}

/** A read asked for a time the shard cannot answer. */
final class InvalidAsOf(val shard: String, val asOf: Long, val since: Long, val upper: Long,
    setting: AsOfSetting = AsOfSetting.Session)
  extends IllegalArgumentException with PersistThrowable {
  override def error: PersistError = {
    val reason =
      if (asOf < since) s"history before since = $since has been compacted"
      else s"only times before upper = $upper are complete"
    val fix =
      if (upper > since) s"Set ${setting.what} to a time in [$since, ${upper - 1}], or ${setting.latest} to read the latest."
      else s"The shard holds no complete time yet; ${setting.empty} to read it as empty."
    PersistError("PERSIST_INVALID_AS_OF.TIME", "shard" -> shard, "asOf" -> asOf, "reason" -> reason, "since" -> since,
      "upper" -> upper, "fix" -> fix)
  }
}
