package sparkpersist.plan

/** How a scan turns parts into rows. */
sealed trait ReadMode extends Serializable

object ReadMode {
  /** Raw updates `(data…, time, diff)` with time <= as-of. */
  case object Updates extends ReadMode
  /** Snapshot of parts without retractions: an update stands for `diff` (normally 1) copies of its row. */
  case object Snapshot extends ReadMode
  /**
   * Snapshot of a shard with retractions: consolidations of the runs (`sparkpersist.consolidate`),
   * one per share of the rows, plus the parts that need none.
   */
  case object ConsolidatedSnapshot extends ReadMode
}
