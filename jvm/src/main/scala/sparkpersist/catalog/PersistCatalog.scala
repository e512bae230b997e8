package sparkpersist.catalog

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.analysis.{NoSuchNamespaceException, NoSuchTableException, TableAlreadyExistsException}
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.connector.catalog.{Column, Identifier, ProcedureCatalog, Table, TableCatalog, TableChange}
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure
import org.apache.spark.sql.connector.expressions.{ClusterByTransform, Transform}
import org.apache.spark.sql.types.{StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.PersistConf
import sparkpersist.cluster.ClusterColumns
import sparkpersist.index.IndexColumns
import sparkpersist.isolation.IsolationLevel
import sparkpersist.plan.TableView
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{NoSuchShard, ShardHandle, ShardStore}

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
 * Shards cannot be renamed.
 */
class PersistCatalog extends TableCatalog with ProcedureCatalog {

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
      .getOrElse(throw new IllegalArgumentException(
        s"Catalog '$name' needs the directory its shards live in: set spark.sql.catalog.$name.root " +
          s"or ${PersistConf.Root.key}."))
    store = new ShardStore(root, spark.sessionState.newHadoopConf(),
      openShards = PersistConf.OpenShards.get(spark.sessionState.conf).toInt)
  }

  override def listTables(namespace: Array[String]): Array[Identifier] = namespace.toSeq match {
    case Seq() => store.list().sorted.map(PersistTableId.snapshotIdentifier).toArray
    case Seq(shard) if store.exists(shard) =>
      TableView.metadataViews.flatMap(_.suffix).map(v => Identifier.of(namespace, v)).toArray
    case _ => throw new NoSuchNamespaceException(namespace)
  }

  override def loadTable(ident: Identifier): Table = {
    val id = PersistTableId.parse(ident, catalogName)
    val shard = try store.open(id.shard) catch { case _: NoSuchShard => throw new NoSuchTableException(ident) }
    val tableName = id.sqlName(catalogName)
    id.view match {
      case TableView.Parts => new PartsTable(shard, tableName)
      case TableView.Batches => new BatchesTable(shard, tableName)
      case TableView.History => new HistoryTable(shard, tableName)
      case view =>
        val state = shard.state
        val properties = Map(
          PersistCatalog.OrderBy -> state.schema.orderBy.mkString(","),
          "shard_id" -> state.shardId,
          "format_version" -> state.formatVersion.toString,
          "since" -> state.since.toString,
          "upper" -> state.upper.toString) ++
          Option(IndexColumns.render(state.schema)).filter(_.nonEmpty).map(IndexColumns.Property -> _) ++
          Option(ClusterColumns.render(state.schema)).filter(_.nonEmpty).map(ClusterColumns.Property -> _) ++
          state.schema.properties
        new PersistTable(shard, state.schema, view, tableName, properties)
    }
  }

  /** `FROM persist.t VERSION AS OF n` ([[TimeTravel]]). */
  override def loadTable(ident: Identifier, version: String): Table =
    travelled(ident, "VERSION AS OF")(TimeTravel.ofVersion(_, version))

  /** `FROM persist.t TIMESTAMP AS OF ts` ([[TimeTravel]]); Spark passes microseconds since the epoch. */
  override def loadTable(ident: Identifier, timestamp: Long): Table =
    travelled(ident, "TIMESTAMP AS OF")(TimeTravel.ofTimestamp(_, timestamp))

  private def travelled(ident: Identifier, what: String)(asOf: ShardHandle => Long): Table = loadTable(ident) match {
    case t: PersistTable => t.travelledTo(asOf(t.shard))
    case other => throw new UnsupportedOperationException(s"${other.name()} cannot be read $what: it shows the " +
      "shard's metadata as it is now. Read persist.<shard> or persist.<shard>.updates as of a time instead.")
  }

  override def createTable(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): Table = {
    val shard = snapshotShard(ident, "create")
    val clusterBy = partitions.toSeq.map {
      case ClusterByTransform(columns) => columns.map(_.fieldNames().mkString("."))
      case _ => throw new UnsupportedOperationException(
        s"Persist table $catalogName.$shard cannot be partitioned: parts are pruned by their statistics. " +
          s"Drop PARTITIONED BY; use CLUSTER BY (columns) to lay rows out by other columns than time, or the " +
          s"'${PersistCatalog.OrderBy}' table property to sort them.")
    }
    val props = properties.asScala.toMap
    val known = Set(PersistCatalog.OrderBy, IndexColumns.Property, ClusterColumns.Property, IsolationLevel.Property)
    val unknown = props.keySet.filterNot(k => known(k) || PersistCatalog.SparkProperties(k))
    if (unknown.nonEmpty) {
      throw new IllegalArgumentException(
        s"Unsupported table properties for $catalogName.$shard: ${unknown.toSeq.sorted.mkString(", ")}. " +
          s"The persist table properties are '${PersistCatalog.OrderBy}', '${IndexColumns.Property}' and " +
          s"'${ClusterColumns.Property}' (comma-separated columns), and '${IsolationLevel.Property}'.")
    }
    val context = s"Cannot create table $catalogName.$shard"
    val clustering = (clusterBy ++ props.get(ClusterColumns.Property).map(ClusterColumns.parse)) match {
      case Seq() => Nil
      case Seq(columns) => columns
      case _ => throw new IllegalArgumentException(s"$context: CLUSTER BY and the table property " +
        s"'${ClusterColumns.Property}' both name clustering columns. Keep one")
    }
    val orderBy = props.get(PersistCatalog.OrderBy).toSeq
      .flatMap(_.split(",")).map(_.trim).filter(_.nonEmpty)
    val struct = StructType(columns.map { c =>
      val field = StructField(c.name(), c.dataType(), c.nullable())
      Option(c.comment()).map(field.withComment).getOrElse(field)
    })
    ShardStore.validateName(shard)
    if (store.exists(shard)) throw new TableAlreadyExistsException(ident)
    val schema = ShardSchema.fromStruct(struct, orderBy, context)
    val indexed = IndexColumns.set(schema, props.get(IndexColumns.Property).toSeq.flatMap(IndexColumns.parse), context)
    val isolation = props.get(IsolationLevel.Property).map(IsolationLevel.parse(_, context))
    store.create(shard, IsolationLevel.set(ClusterColumns.set(indexed, clustering, context), isolation))
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

  override def renameTable(oldIdent: Identifier, newIdent: Identifier): Unit =
    throw new UnsupportedOperationException(
      s"Persist tables cannot be renamed (${oldIdent.name()}): create a new shard and copy the data " +
        "with INSERT INTO ... SELECT.")

  override def loadProcedure(ident: Identifier): UnboundProcedure = SystemProcedures.load(ident, store)

  override def listProcedures(namespace: Array[String]): Array[Identifier] = SystemProcedures.list(namespace, store)

  /** The shard `ident` names as a table to `action`; only snapshot names qualify. */
  private def snapshotShard(ident: Identifier, action: String): String = {
    val id = PersistTableId.parse(ident, catalogName)
    if (id.view != TableView.Snapshot) {
      throw new UnsupportedOperationException(
        s"Cannot $action ${id.sqlName(catalogName)}: it is a view of shard '${id.shard}'. " +
          s"$action $catalogName.${id.shard} instead.")
    }
    id.shard
  }
}

object PersistCatalog {
  /** Table property: the shard's order key, comma-separated column names. */
  val OrderBy = "order_by"

  /** Properties Spark itself sets on CREATE TABLE; they carry nothing for a shard. */
  private val SparkProperties: Set[String] = Set(
    TableCatalog.PROP_OWNER, TableCatalog.PROP_PROVIDER, TableCatalog.PROP_COMMENT,
    TableCatalog.PROP_EXTERNAL, TableCatalog.PROP_IS_MANAGED_LOCATION, TableCatalog.PROP_COLLATION,
    TableCatalog.PROP_TABLE_TYPE)
}
