package sparkpersist.catalog

import scala.util.control.NonFatal

import sparkpersist.errors.PersistError
import sparkpersist.plan.AsOf
import sparkpersist.shard.ShardHandle

/**
 * What `FROM persist.t TIMESTAMP AS OF …` and `VERSION AS OF …` (and the DataFrame reader's
 * `timestampAsOf` / `versionAsOf` options) read: a snapshot of the shard as of one update time.
 *
 *  - `TIMESTAMP AS OF ts` reads as of the update time `ts` (epoch milliseconds, rounded down): every
 *    update with time <= ts. For a shard written with commit times that is every batch committed at
 *    or before `ts`, as Delta's and Iceberg's timestamp travel; for a shard whose times come from a
 *    `time_col`, it is the collection as of that event time (persist's own notion of time).
 *  - `VERSION AS OF n` reads the shard as state version `n` committed it: as of that version's
 *    `upper - 1`. Versions number the shard's commits (appends, compactions, schema changes) from 0,
 *    as `persist.<shard>.batches` and the state log show them; a compaction's version reads the same
 *    rows as the version before it.
 *
 * Either must lie in `[since, upper)` of the shard now: below `since` the history was compacted
 * away, at or above `upper` it is not complete yet ([[InvalidAsOf]], the error a session as-of
 * gives). A version the log no longer holds (garbage collection keeps `gc.keepVersions`) or never
 * held is refused naming the versions there are.
 */
object TimeTravel {

  /** The as-of of `TIMESTAMP AS OF` a time in microseconds since the epoch, as Spark passes it. */
  def ofTimestamp(shard: ShardHandle, micros: Long): Long =
    AsOf.check(shard.state, Math.floorDiv(micros, 1000L))

  /** The as-of of `VERSION AS OF version`. */
  def ofVersion(shard: ShardHandle, version: String): Long = {
    val state = shard.state
    def refuse(version: String, reason: String, cause: Throwable = null) =
      PersistError("PERSIST_INVALID_AS_OF.VERSION", "shard" -> shard.name, "version" -> version, "reason" -> reason)
        .invalidInput(cause)
    val seqNo = version.trim.toLongOption.filter(_ >= 0).getOrElse(throw refuse(s"'$version'",
      s"a version is a state version number (0 to ${state.seqNo}). Use TIMESTAMP AS OF for a time."))
    if (seqNo > state.seqNo) throw refuse(seqNo.toString, s"its newest version is ${state.seqNo}.")
    val at = try shard.log.statesFrom(seqNo).next() catch {
      case NonFatal(e) => throw refuse(seqNo.toString, "the state log no longer holds it (garbage collection keeps " +
        s"the newest versions; ${e.getMessage}). Read as of a time instead: TIMESTAMP AS OF.", e)
    }
    if (at.upper <= 0) throw refuse(seqNo.toString, "no time was complete yet at that version (it holds no batch).")
    AsOf.check(state, at.upper - 1)
  }
}
