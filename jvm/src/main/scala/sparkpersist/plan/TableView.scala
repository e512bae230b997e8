package sparkpersist.plan

/** What a catalog identifier names: one of the views of a shard. */
sealed abstract class TableView(val suffix: Option[String])

object TableView {
  /** `persist.<shard>`: the consolidated contents as of the read's as-of. */
  case object Snapshot extends TableView(None)
  /** `persist.<shard>.updates`: the raw updates `(data…, time, diff)` with time <= as-of. */
  case object Updates extends TableView(Some("updates"))
  /** `persist.<shard>.parts`: one row per part with its statistics. */
  case object Parts extends TableView(Some("parts"))
  /** `persist.<shard>.batches`: one row per batch with its time bounds, runs and parts. */
  case object Batches extends TableView(Some("batches"))

  /** `persist.<shard>.history`: one row per state version still on disk, newest first: what committed it. */
  case object History extends TableView(Some("history"))

  val metadataViews: Seq[TableView] = Seq(Updates, Parts, Batches, History)
}
