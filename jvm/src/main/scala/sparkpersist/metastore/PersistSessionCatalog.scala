package sparkpersist.metastore

import java.net.URI
import java.util
import java.util.Locale

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.catalyst.catalog.{CatalogStorageFormat, CatalogTable, CatalogTableType, CatalogUtils}
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.connector.catalog.{Column, DelegatingCatalogExtension, Identifier, Table, TableCatalog, TableChange}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sparkpersist.MetastoreTables
import org.apache.spark.sql.types.StructType

import sparkpersist.PersistConf
import sparkpersist.catalog.{ShardTables, TableChanges, TimeTravel}
import sparkpersist.errors.{PersistError, PersistErrors}
import sparkpersist.plan.TableView
import sparkpersist.shard.{ShardHandle, ShardLocations}

/**
 * Spark's session catalog (`spark_catalog`) with persist tables in it: set
 * `spark.sql.catalog.spark_catalog=sparkpersist.metastore.PersistSessionCatalog`. Tables of every
 * other provider, views, namespaces and functions are Spark's own, in its metastore (Hive, or the
 * in-memory catalog); `USING persist` tables are entries of that metastore (provider `persist`, their
 * columns, location and properties) whose shard lives at the table's location:
 *
 *  - `CREATE TABLE db.t (...) USING persist [LOCATION dir] [TBLPROPERTIES (...)]` and CTAS create the
 *    shard (the properties and CLUSTER BY of [[ShardTables.definition]]) at the default location of a
 *    managed table, or at `LOCATION` (external). An external table over an existing shard takes its
 *    schema (give no columns).
 *  - Reads, INSERT, DELETE / UPDATE / MERGE, INSERT OVERWRITE, time travel and the metadata views
 *    `db.t.updates`, `db.t.parts`, `db.t.batches` are the shard's tables ([[ShardTables.load]]).
 *  - `ALTER TABLE` changes the shard ([[TableChanges]]), then the metastore entry: the shard's schema is
 *    the table's.
 *  - `DROP TABLE` removes the entry, and the shard with it when the table is managed; an external
 *    table's shard stays, as Spark keeps the files of any external table.
 */
class PersistSessionCatalog extends DelegatingCatalogExtension {

  /** The shards of the session's persist tables, at their locations. */
  private lazy val shards: ShardLocations = new ShardLocations(session.sessionState.newHadoopConf(),
    openShards = PersistConf.OpenShards.get(session.sessionState.conf).toInt)

  override def createTable(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): Table =
    if (isPersist(properties.get(TableCatalog.PROP_PROVIDER))) {
      createShardTable(ident, columns, partitions, properties.asScala.toMap)
    } else {
      super.createTable(ident, columns, partitions, properties)
    }

  override def loadTable(ident: Identifier): Table = metadataView(ident) match {
    case Some((entry, view)) => table(entry, view)
    case None =>
      val loaded = super.loadTable(ident)
      MetastoreTables.entryOf(loaded).filter(isPersist).map(table(_, TableView.Snapshot)).getOrElse(loaded)
  }

  override def loadTable(ident: Identifier, version: String): Table =
    if (persistEntry(ident).isEmpty) super.loadTable(ident, version)
    else ShardTables.travelled(loadTable(ident), "VERSION AS OF")(TimeTravel.ofVersion(_, version))

  override def loadTable(ident: Identifier, timestamp: Long): Table =
    if (persistEntry(ident).isEmpty) super.loadTable(ident, timestamp)
    else ShardTables.travelled(loadTable(ident), "TIMESTAMP AS OF")(TimeTravel.ofTimestamp(_, timestamp))

  override def alterTable(ident: Identifier, changes: TableChange*): Table = persistEntry(ident) match {
    case Some(entry) =>
      val shard = shards.open(locationOf(entry))
      shard.log.alterSchema(TableChanges.applyAll(_, changes, s"Cannot alter table ${sqlName(entry)}"))
      val altered = ShardTables.data(shard, TableView.Snapshot, sqlName(entry))
      val sessionCatalog = session.sessionState.catalog
      sessionCatalog.alterTable(entry.copy(properties = ShardTables.changedProperties(entry.properties, changes)))
      if (altered.schema() != entry.schema) sessionCatalog.alterTableSchema(entry.identifier, altered.schema())
      altered
    case None => super.alterTable(ident, changes: _*)
  }

  override def dropTable(ident: Identifier): Boolean = dropped(ident, super.dropTable)

  override def purgeTable(ident: Identifier): Boolean = dropped(ident, super.purgeTable)

  /** Drops the entry by `drop`, then a managed table's shard (the metastore may have deleted its directory already). */
  private def dropped(ident: Identifier, drop: Identifier => Boolean): Boolean = {
    val entry = persistEntry(ident)
    val done = drop(ident)
    entry.filter(_.tableType == CatalogTableType.MANAGED).foreach(e => shards.drop(locationOf(e)))
    done
  }

  private def createShardTable(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: Map[String, String]): Table = {
    val sessionCatalog = session.sessionState.catalog
    val id = tableIdentifier(ident)
    val name = s"${this.name()}.${id.database.get}.${id.table}"
    val location = properties.get(TableCatalog.PROP_LOCATION).map(CatalogUtils.stringToURI)
    val external = properties.contains(TableCatalog.PROP_EXTERNAL) || (location.isDefined &&
      !properties.get(TableCatalog.PROP_IS_MANAGED_LOCATION).exists(_.equalsIgnoreCase("true")))
    val shardProperties = properties -- Seq(TableCatalog.PROP_LOCATION)
    val existing = location.map(new Path(_)).filter(_ => external).filter(shards.exists)
    val (schema, newShard) = existing match {
      case Some(at) => (adopted(name, shards.open(at), columns, partitions, shardProperties), None)
      case None => (ShardTables.struct(columns), Some(ShardTables.definition(name, columns, partitions, shardProperties)))
    }
    location.filter(_ => existing.isEmpty).foreach(refuseOtherFiles(name, _))
    sessionCatalog.createTable(CatalogTable(
      identifier = id,
      tableType = if (external) CatalogTableType.EXTERNAL else CatalogTableType.MANAGED,
      storage = CatalogStorageFormat.empty.copy(locationUri = location),
      schema = schema,
      provider = Some(PersistSessionCatalog.Provider),
      properties = shardProperties.filter { case (k, _) => ShardTables.ShardProperties(k) },
      comment = properties.get(TableCatalog.PROP_COMMENT)), ignoreIfExists = false, validateLocation = !external)
    newShard.foreach { shardSchema =>
      try shards.create(locationOf(sessionCatalog.getTableMetadata(id)), shardSchema)
      catch {
        case NonFatal(e) =>
          sessionCatalog.dropTable(id, ignoreIfNotExists = true, purge = true)
          throw e
      }
    }
    loadTable(ident)
  }

  /** The schema of an existing shard an external table is created over: CREATE gives no columns, or the same ones. */
  private def adopted(name: String, shard: ShardHandle, columns: Array[Column], partitions: Array[Transform],
      properties: Map[String, String]): StructType = {
    val own = ShardTables.data(shard, TableView.Snapshot, name).schema()
    val declared = ShardTables.struct(columns)
    val shardOnly = properties.keySet.filter(ShardTables.ShardProperties)
    if ((columns.nonEmpty && declared.map(f => (f.name, f.dataType)) != own.map(f => (f.name, f.dataType))) ||
      partitions.nonEmpty || shardOnly.nonEmpty) {
      throw PersistErrors.invalidSchema(s"Cannot create table $name", "its location holds a persist shard already, " +
        s"with the columns ${own.toDDL}. Create the table without columns, CLUSTER BY or persist table properties " +
        "to use that shard as it is (ALTER TABLE changes it afterwards), or choose another LOCATION.")
    }
    own
  }

  /** Refuses a LOCATION holding files that are not a shard: a persist table's directory is its shard's alone. */
  private def refuseOtherFiles(name: String, location: URI): Unit = {
    val path = new Path(location)
    val fs = path.getFileSystem(session.sessionState.newHadoopConf())
    if (fs.exists(path) && fs.listStatus(path).nonEmpty) {
      throw PersistError("PERSIST_LOCATION_NOT_EMPTY", "what" -> s"table $name", "location" -> location,
        "advice" -> ("A persist table's directory holds its shard alone: choose a new or empty directory, or load " +
          "the files into the table with INSERT INTO ... SELECT.")).invalidInput()
    }
  }

  private def table(entry: CatalogTable, view: TableView): Table =
    ShardTables.load(shards.open(locationOf(entry)), view, sqlName(entry) + view.suffix.map("." + _).getOrElse(""),
      Map(
        TableCatalog.PROP_PROVIDER -> PersistSessionCatalog.Provider,
        TableCatalog.PROP_LOCATION -> CatalogUtils.URIToString(entry.location),
        TableCatalog.PROP_TABLE_TYPE -> entry.tableType.name,
        TableCatalog.PROP_OWNER -> entry.owner) ++
        entry.comment.map(TableCatalog.PROP_COMMENT -> _))

  /** `db.t.parts` and the other metadata views: a persist table's entry and the view. */
  private def metadataView(ident: Identifier): Option[(CatalogTable, TableView)] = ident.namespace().toSeq match {
    case Seq(db, t) =>
      TableView.metadataViews.find(_.suffix.contains(ident.name().toLowerCase(Locale.ROOT)))
        .flatMap(view => persistEntry(Identifier.of(Array(db), t)).map(_ -> view))
    case _ => None
  }

  /** The metastore entry of `ident` if it is a persist table. */
  private def persistEntry(ident: Identifier): Option[CatalogTable] = ident.namespace().toSeq match {
    case Seq(_) =>
      try Some(session.sessionState.catalog.getTableMetadata(tableIdentifier(ident))).filter(isPersist)
      catch { case _: NoSuchTableException => None }
    case _ => None
  }

  private def isPersist(entry: CatalogTable): Boolean = entry.provider.exists(isPersist)

  private def isPersist(provider: String): Boolean =
    provider != null && provider.equalsIgnoreCase(PersistSessionCatalog.Provider)

  private def locationOf(entry: CatalogTable): Path = new Path(entry.location)

  private def sqlName(entry: CatalogTable): String = s"${name()}.${entry.database}.${entry.identifier.table}"

  private def tableIdentifier(ident: Identifier): TableIdentifier = ident.namespace().toSeq match {
    case Seq(db) => TableIdentifier(ident.name(), Some(db))
    case _ => throw PersistError("PERSIST_INVALID_NAME.TABLE", "name" -> (ident.namespace() :+ ident.name()).mkString("."),
      "shapes" -> s"<database>.<table> for a table of ${name()}").invalidInput()
  }

  private def session: SparkSession = SparkSession.active
}

object PersistSessionCatalog {
  /**
   * The provider of persist tables, `USING persist`: the data source `persist`
   * (`sparkpersist.datasource.PersistDataSource`), which makes Spark hand such tables to this catalog.
   */
  val Provider = "persist"
}
