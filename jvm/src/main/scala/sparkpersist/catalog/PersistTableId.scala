package sparkpersist.catalog

import java.util.Locale

import org.apache.spark.sql.connector.catalog.Identifier

import sparkpersist.errors.PersistError
import sparkpersist.plan.TableView
import sparkpersist.shard.ShardStore

/**
 * A parsed catalog identifier: the shard it names (a [[ShardStore]] reference: `events`,
 * `sales.orders` in the namespace `sales`, or a location such as `/data/t` or `s3a://b/t`) and
 * the view of it.
 *
 * A shard's metadata view is addressed Iceberg-style by one more name part, so
 * `persist.events.updates` needs no quoting. `persist.a.b` then reads two ways, and the rule is:
 * it is the view `b` of shard `a` when `a` is a shard and `b` a view suffix (`updates`, `parts`,
 * `batches`, ...); otherwise it is shard `b` in namespace `a`. It never means both: a directory is
 * a shard or a namespace, never both, so when `a` is a shard there is no namespace `a` to hold a
 * shard `b` (the store refuses to create a namespace named like a shard, and the reverse).
 *
 * A single backquoted name that is an absolute path or a URI (`persist.\`/data/t\``,
 * `persist.\`s3a://b/t\``) names the shard at that location, as Delta's `delta.\`path\``;
 * `persist.\`/data/t\`.parts` is its parts view. Names never hold `/` or `:`.
 */
final case class PersistTableId(shard: String, view: TableView) {
  def sqlName(catalog: String): String = {
    val quoted = if (ShardStore.isLocation(shard)) s"`${shard.replace("`", "``")}`" else shard
    (Seq(catalog, quoted) ++ view.suffix).mkString(".")
  }
}

object PersistTableId {
  /**
   * Parses `ident`; `isShard` tells whether a reference names an existing shard (the rule above).
   * Throws an IllegalArgumentException listing the accepted shapes.
   */
  def parse(ident: Identifier, catalog: String, isShard: String => Boolean): PersistTableId = {
    val namespace = ident.namespace().toSeq
    val view = TableView.metadataViews.find(_.suffix.contains(ident.name().toLowerCase(Locale.ROOT)))
    namespace match {
      case Seq() => PersistTableId(ident.name(), TableView.Snapshot)
      case Seq(location) if ShardStore.isLocation(location) =>
        view.map(PersistTableId(location, _)).getOrElse(throw unsupported(ident, catalog))
      case _ if namespace.exists(ShardStore.isLocation) || ShardStore.isLocation(ident.name()) =>
        throw unsupported(ident, catalog)
      case _ =>
        val owner = namespace.mkString(".")
        view.filter(_ => isShard(owner)).map(PersistTableId(owner, _))
          .getOrElse(PersistTableId(ShardStore.qualify(namespace, ident.name()), TableView.Snapshot))
    }
  }

  /** The identifier of a shard's snapshot table in `namespace`. */
  def snapshotIdentifier(namespace: Seq[String], shard: String): Identifier = Identifier.of(namespace.toArray, shard)

  private def unsupported(ident: Identifier, catalog: String): IllegalArgumentException =
    PersistError("PERSIST_INVALID_NAME.TABLE", "name" -> (Seq(catalog) ++ ident.namespace() :+ ident.name()).mkString("."),
      "shapes" -> (s"$catalog.<shard> (or $catalog.<namespace>.<shard>) for a shard's snapshot, $catalog.`<path or URI>` " +
        "for the shard at a location, and one more part for its metadata: .updates for its raw updates, .parts for " +
        "its parts, .batches for its batches, .history for its history")).invalidInput()
}
