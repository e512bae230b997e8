package sparkpersist.catalog

import org.apache.spark.sql.connector.catalog.Identifier

import sparkpersist.plan.TableView

/**
 * A parsed catalog identifier. Shards live in the catalog's empty namespace; a metadata view of
 * a shard is addressed Iceberg-style by one more name part, so `persist.events.updates` needs
 * no quoting: the shard `events` is the namespace and `updates` the view.
 */
final case class PersistTableId(shard: String, view: TableView) {
  def sqlName(catalog: String): String = (Seq(catalog, shard) ++ view.suffix).mkString(".")
}

object PersistTableId {
  /** Parses `ident`, or throws an IllegalArgumentException listing the accepted shapes. */
  def parse(ident: Identifier, catalog: String): PersistTableId =
    (ident.namespace().toSeq, ident.name()) match {
      case (Seq(), shard) => PersistTableId(shard, TableView.Snapshot)
      case (Seq(shard), view) =>
        TableView.metadataViews.find(_.suffix.contains(view.toLowerCase(java.util.Locale.ROOT)))
          .map(PersistTableId(shard, _))
          .getOrElse(throw unsupported(ident, catalog))
      case _ => throw unsupported(ident, catalog)
    }

  /** The identifier of a shard's snapshot table. */
  def snapshotIdentifier(shard: String): Identifier = Identifier.of(Array.empty, shard)

  private def unsupported(ident: Identifier, catalog: String): IllegalArgumentException = {
    val written = (Seq(catalog) ++ ident.namespace() :+ ident.name()).mkString(".")
    new IllegalArgumentException(
      s"'$written' is not a persist table name. Use $catalog.<shard> for a shard's snapshot, " +
        s"$catalog.<shard>.updates for its raw updates, $catalog.<shard>.parts for its parts, " +
        s"$catalog.<shard>.batches for its batches or $catalog.<shard>.history for its history.")
  }
}
