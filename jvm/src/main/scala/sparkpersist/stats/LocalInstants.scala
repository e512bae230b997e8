package sparkpersist.stats

import java.time.{Instant, LocalDateTime, ZoneId, ZoneOffset}

/**
 * Turns local date-times (microseconds since 1970-01-01T00:00, as [[CanonicalTime]] reads them)
 * into instants in one zone the way Spark's `CAST(s AS TIMESTAMP)` does, without going through
 * `java.time` for every value. It remembers the span of local times between two of the zone's
 * offset transitions that the last instant learnt ([[learn]]) fell in: every local time in it
 * exists exactly once, at that one offset, so its instant is the local time minus the offset.
 * Local times outside the span (another span, or a gap or overlap around a transition, where
 * Spark shifts or picks an offset) are not [[covers covered]]: their instant must be computed by
 * Spark and learnt. A zone with a fixed offset has one span covering every local time.
 */
private[stats] final class LocalInstants(zone: ZoneId) {
  private val rules = zone.getRules
  private var from = Long.MaxValue // the span [from, until) of local micros, empty until learnt
  private var until = Long.MinValue
  private var offsetMicros = 0L

  /** Whether [[instant]] knows `localMicros`' instant. */
  def covers(localMicros: Long): Boolean = localMicros >= from && localMicros < until

  /** The instant (microseconds since the epoch) of a covered local time. */
  def instant(localMicros: Long): Long = localMicros - offsetMicros

  /** Learns the span of `instantMicros`, the instant Spark gave some local time. */
  def learn(instantMicros: Long): Unit = {
    val at = Instant.ofEpochSecond(Math.floorDiv(instantMicros, 1000000L), Math.floorMod(instantMicros, 1000000L) * 1000L)
    // The last transition at or before `at` (previousTransition is strictly before) and the next one.
    val previous = rules.previousTransition(at.plusNanos(1))
    val next = rules.nextTransition(at)
    offsetMicros = rules.getOffset(at).getTotalSeconds * 1000000L
    from = if (previous == null) Long.MinValue
      else Math.max(local(previous.getDateTimeBefore), local(previous.getDateTimeAfter))
    until = if (next == null) Long.MaxValue
      else Math.min(local(next.getDateTimeBefore), local(next.getDateTimeAfter))
  }

  private def local(t: LocalDateTime): Long =
    Math.addExact(Math.multiplyExact(t.toEpochSecond(ZoneOffset.UTC), 1000000L), t.getNano / 1000L)
}
