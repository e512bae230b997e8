package sparkpersist.restore

import sparkpersist.catalog.TimeTravel
import sparkpersist.shard.ShardHandle

/** What a RESTORE goes back to: a state version (`VERSION AS OF`) or an update time (`TIMESTAMP AS OF`). */
sealed trait RestoreTarget {
  /** The as-of time whose snapshot the shard is restored to, checked as a time-travel read checks it. */
  def asOf(shard: ShardHandle): Long

  /** The target as the history records it, in the RESTORE's parameters. */
  def parameters: Map[String, String]
}

object RestoreTarget {
  /** State version `version`: the snapshot as that version committed it ([[TimeTravel.ofVersion]]). */
  final case class Version(version: Long) extends RestoreTarget {
    def asOf(shard: ShardHandle): Long = TimeTravel.ofVersion(shard, version.toString)
    def parameters: Map[String, String] = Map("version" -> version.toString)
  }

  /** Update time `micros` (microseconds since the epoch, as Spark's timestamps): every update at or before it. */
  final case class Timestamp(micros: Long) extends RestoreTarget {
    def asOf(shard: ShardHandle): Long = TimeTravel.ofTimestamp(shard, micros)
    def parameters: Map[String, String] = Map("timestamp" -> java.time.Instant.EPOCH.plusNanos(Math.multiplyExact(micros, 1000L)).toString)
  }
}
