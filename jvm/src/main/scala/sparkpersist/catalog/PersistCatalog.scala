package sparkpersist.catalog

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.analysis.{NamespaceAlreadyExistsException, NoSuchNamespaceException, NoSuchTableException, NonEmptyNamespaceException, TableAlreadyExistsException}
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.connector.catalog.{Column, Identifier, NamespaceChange, ProcedureCatalog, SupportsNamespaces, Table, TableCatalog, TableChange}
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.PersistConf
import sparkpersist.cluster.ClusterColumns
import sparkpersist.errors.PersistErrors
import sparkpersist.index.IndexColumns
import sparkpersist.plan.TableView
import sparkpersist.shard.{NamespaceAlreadyExists, NamespaceNotEmpty, NoSuchNamespace, NoSuchShard, ShardAlreadyExists, ShardHandle, ShardStore}

/**
 * The catalog that shows persist shards to SQL. Register it with
 * `spark.sql.catalog.persist=sparkpersist.catalog.PersistCatalog` and give it the shards'
 * directory as `spark.sql.catalog.persist.root` (or [[PersistConf.Root]]).
 *
 * Names (with the catalog registered as `persist`):
 *  - `persist.<shard>`: the shard's snapshot, consolidated as of the read's as-of;
 *    `CREATE TABLE`, `INSERT INTO` (append) and `DROP TABLE` act on it. The table property
 *    `order_by` (a comma-separated list of columns) sets the order key at creation;
 *    `sparkpersist.indexColumns` ([[IndexColumns]]) names the columns every writer indexes, at
 *    creation or with `ALTER TABLE ... SET TBLPROPERTIES`; `CLUSTER BY (columns)` (or the property
 *    `sparkpersist.clusterBy`, [[ClusterColumns]]) names the columns compaction clusters rows by,
 *    at creation or with `ALTER TABLE ... CLUSTER BY`.
 *  - `persist.<shard>.updates`: its raw updates `(data…, time, diff)` with time <= as-of.
 *  - `persist.<shard>.parts`: one row per part, with the part's statistics.
 *  - `persist.<shard>.batches`: one row per batch, with its time bounds, runs and parts.
 *  - `persist.<shard>.history`: one row per state version, with what committed it ([[HistoryTable]]).
 *  - `CALL persist.system.<procedure>(...)`: the [[SystemProcedures]] (compaction, GC).
 *    `ALTER TABLE` changes the shard's schema ([[TableChanges]]).
 *  - Namespaces (`CREATE NAMESPACE persist.sales`): nested directories under the root;
 *    `persist.sales.orders` is shard `orders` in namespace `sales`, and how `persist.a.b` is read
 *    (a shard's view, or a shard in a namespace) is [[PersistTableId]]'s rule.
 *  - `persist.\`<path or URI>\``: the shard at that location (a path table).
 * `ALTER TABLE ... RENAME TO` moves a shard's directory where the store renames atomically
 * ([[sparkpersist.shard.ShardLocations.move]]); the new name may repeat the catalog's or not.
 */
class PersistCatalog extends TableCatalog with SupportsNamespaces with ProcedureCatalog {

  private var catalogName: String = _
  private var store: ShardStore = _

  override def name(): String = catalogName

  /** The shards this catalog shows (the Python facade writes through it too). */
  def shardStore: ShardStore = store

  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = {
    catalogName = name
    val spark = SparkSession.active
    val root = Option(options.get("root")).filter(_.trim.nonEmpty)
      .orElse(PersistConf.Root.get(spark.sessionState.conf))
      .getOrElse(throw PersistErrors.invalidOption(s"Catalog '$name'", "it needs the directory its shards live " +
        s"in: set spark.sql.catalog.$name.root or ${PersistConf.Root.key}."))
    store = new ShardStore(root, spark.sessionState.newHadoopConf(),
      openShards = PersistConf.OpenShards.get(spark.sessionState.conf).toInt)
  }

  override def listTables(namespace: Array[String]): Array[Identifier] = namespace.toSeq match {
    case ns if namespaceExists(namespace) => store.list(ns).map(PersistTableId.snapshotIdentifier(ns, _)).toArray
    case ns if store.exists(ns.mkString(".")) =>
      TableView.metadataViews.flatMap(_.suffix).map(v => Identifier.of(namespace, v)).toArray
    case _ => throw new NoSuchNamespaceException(namespace)
  }

  override def loadTable(ident: Identifier): Table = {
    val id = parse(ident)
    val shard = try store.open(id.shard) catch { case _: NoSuchShard => throw new NoSuchTableException(ident) }
    ShardTables.load(shard, id.view, id.sqlName(catalogName))
  }

  /** Whether the shard `ident` names (or whose view it names) exists, without reading its state. */
  override def tableExists(ident: Identifier): Boolean = store.exists(parse(ident).shard)

  /** `FROM persist.t VERSION AS OF n` ([[TimeTravel]]). */
  override def loadTable(ident: Identifier, version: String): Table =
    travelled(ident, "VERSION AS OF")(TimeTravel.ofVersion(_, version))

  /** `FROM persist.t TIMESTAMP AS OF ts` ([[TimeTravel]]); Spark passes microseconds since the epoch. */
  override def loadTable(ident: Identifier, timestamp: Long): Table =
    travelled(ident, "TIMESTAMP AS OF")(TimeTravel.ofTimestamp(_, timestamp))

  private def travelled(ident: Identifier, what: String)(asOf: ShardHandle => Long): Table =
    ShardTables.travelled(loadTable(ident), what)(asOf)

  override def createTable(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): Table = {
    val shard = snapshotShard(ident, "create")
    val schema = ShardTables.definition(s"$catalogName.$shard", columns, partitions, properties.asScala.toMap)
    if (store.exists(shard)) throw new TableAlreadyExistsException(ident)
    try store.create(shard, schema)
    catch {
      case _: ShardAlreadyExists => throw new TableAlreadyExistsException(ident)
      case e: NoSuchNamespace => throw new NoSuchNamespaceException(e.namespace.toArray)
    }
    loadTable(ident)
  }

  override def dropTable(ident: Identifier): Boolean = store.drop(snapshotShard(ident, "drop"))

  /**
   * Changes the shard's schema ([[TableChanges]]) in one compare-and-set state version. Parts stay
   * as written: columns are matched by stable id on read and in statistics.
   */
  override def alterTable(ident: Identifier, changes: TableChange*): Table = {
    val shard = snapshotShard(ident, "alter")
    if (!store.exists(shard)) throw new NoSuchTableException(ident)
    val context = s"Cannot alter table $catalogName.$shard"
    store.open(shard).log.alterSchema(schema => TableChanges.applyAll(schema, changes, context))
    loadTable(ident)
  }

  /**
   * Moves the shard's directory ([[ShardStore.rename]]): atomic on local disk and HDFS, refused
   * with the reason on object stores. As for Iceberg's catalogs the new name may leave the catalog
   * out (`RENAME TO sales.orders2`); Spark hands `RENAME TO persist.h2` over as namespace `persist`,
   * which names this catalog unless a namespace `persist` exists.
   */
  override def renameTable(oldIdent: Identifier, newIdent: Identifier): Unit = {
    val from = snapshotShard(oldIdent, "rename")
    val target = newIdent.namespace().toSeq match {
      case first +: rest if first == catalogName && !store.namespaceExists(Seq(catalogName)) => Identifier.of(rest.toArray, newIdent.name())
      case _ => newIdent
    }
    val to = snapshotShard(target, "rename to")
    try store.rename(from, to)
    catch {
      case _: NoSuchShard => throw new NoSuchTableException(oldIdent)
      case _: ShardAlreadyExists => throw new TableAlreadyExistsException(target)
      case e: NoSuchNamespace => throw new NoSuchNamespaceException(e.namespace.toArray)
    }
  }

  override def listNamespaces(): Array[Array[String]] = listNamespaces(Array.empty)

  override def listNamespaces(namespace: Array[String]): Array[Array[String]] =
    try store.listNamespaces(namespace.toSeq).map(_.toArray).toArray
    catch { case _: NoSuchNamespace => throw new NoSuchNamespaceException(namespace) }

  override def namespaceExists(namespace: Array[String]): Boolean =
    namespace.forall(ShardStore.isName) && store.namespaceExists(namespace.toSeq)

  override def loadNamespaceMetadata(namespace: Array[String]): util.Map[String, String] =
    try store.namespaceProperties(namespace.toSeq).asJava
    catch { case _: NoSuchNamespace => throw new NoSuchNamespaceException(namespace) }

  /** Creates a namespace (a directory under the root) whose parent exists; its properties (`COMMENT`, `WITH DBPROPERTIES`) are kept in it. */
  override def createNamespace(namespace: Array[String], metadata: util.Map[String, String]): Unit =
    try store.createNamespace(namespace.toSeq, metadata.asScala.toMap)
    catch {
      case _: NamespaceAlreadyExists => throw new NamespaceAlreadyExistsException(namespace)
      case e: NoSuchNamespace => throw new NoSuchNamespaceException(e.namespace.toArray)
    }

  override def alterNamespace(namespace: Array[String], changes: NamespaceChange*): Unit =
    throw PersistErrors.unsupported(s"Cannot alter namespace $catalogName.${namespace.mkString(".")}", "it keeps the " +
      "properties it was created with: drop it and create it again with other properties.")

  /** Drops a namespace: RESTRICT refuses one holding shards or namespaces, CASCADE drops every shard in it. */
  override def dropNamespace(namespace: Array[String], cascade: Boolean): Boolean =
    try store.dropNamespace(namespace.toSeq, cascade)
    catch { case e: NamespaceNotEmpty => throw new NonEmptyNamespaceException(namespace, e.getMessage, Some(e)) }

  override def loadProcedure(ident: Identifier): UnboundProcedure = SystemProcedures.load(ident, store)

  override def listProcedures(namespace: Array[String]): Array[Identifier] = SystemProcedures.list(namespace, store)

  /** The shard `ident` names as a table to `action`; only snapshot names qualify. */
  private def snapshotShard(ident: Identifier, action: String): String = {
    val id = parse(ident)
    if (id.view != TableView.Snapshot) {
      throw PersistErrors.unsupported(s"Cannot $action ${id.sqlName(catalogName)}",
        s"it is a view of shard '${id.shard}'. $action $catalogName.${id.shard} instead.")
    }
    id.shard
  }

  private def parse(ident: Identifier): PersistTableId = PersistTableId.parse(ident, catalogName, store.exists)
}

object PersistCatalog {
  /** Table property: the shard's order key, comma-separated column names. */
  val OrderBy = "order_by"
}
