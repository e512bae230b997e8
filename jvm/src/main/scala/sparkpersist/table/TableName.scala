package sparkpersist.table

import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.catalyst.util.QuotingUtils

import sparkpersist.catalog.SessionShards
import sparkpersist.errors.{PersistError, PersistErrors}

/**
 * The name parts of a shard's table in the session's persist catalog: `persist.<shard>` for a
 * shard of the catalog's root, ``persist.`<uri>` `` for a shard at a path.
 */
private[table] final case class TableName(parts: Seq[String]) {
  /** The shard, as the catalog's procedures name it: its name (dotted in a namespace) or its path. */
  def shard: String = parts.tail.mkString(".")

  /** The name of one of the shard's metadata views (`history`, `parts`, `batches`, `updates`). */
  def view(name: String): TableName = TableName(parts :+ name)

  /** The name as SQL writes it, each part quoted. */
  def sql: String = parts.map(QuotingUtils.quoteIdentifier).mkString(".")
}

private[table] object TableName {
  import SessionShards.CatalogName

  /**
   * `name`: a shard (`events`) or the catalog's table (`persist.events`, or `persist.sales.orders`
   * for a shard in a namespace), quoted as SQL quotes.
   */
  def forName(name: String): TableName =
    CatalystSqlParser.parseMultipartIdentifier(name) match {
      case Seq(shard) => TableName(Seq(CatalogName, shard))
      case Seq(catalog, shard @ _*) if catalog.equalsIgnoreCase(CatalogName) => TableName(CatalogName +: shard)
      case _ => throw PersistError("PERSIST_INVALID_NAME.TABLE", "name" -> name, "shapes" -> (s"a shard ('events') or " +
        s"the persist catalog's table ('$CatalogName.events'); ShardTable.forPath for a shard at a path")).invalidInput()
    }

  /** The shard stored at `path` (any Hadoop FileSystem URI). */
  def forPath(path: String): TableName = {
    if (path == null || path.trim.isEmpty) {
      throw PersistErrors.invalidOption("ShardTable.forPath", "it needs the shard's path, e.g. 's3a://bucket/shards/events'.")
    }
    TableName(Seq(CatalogName, path))
  }
}
