package sparkpersist.catalog

import org.apache.spark.sql.connector.catalog.{Column, Table, TableCatalog, TableChange}
import org.apache.spark.sql.connector.expressions.{ClusterByTransform, Transform}
import org.apache.spark.sql.types.{StructField, StructType}

import sparkpersist.cluster.ClusterColumns
import sparkpersist.errors.PersistErrors
import sparkpersist.iceberg.IcebergProperty
import sparkpersist.index.IndexColumns
import sparkpersist.isolation.IsolationLevel
import sparkpersist.plan.TableView
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.ShardHandle

/**
 * The tables of one shard, whichever catalog names it: [[PersistCatalog]] by the shard's name under
 * its root, Spark's session catalog by a metastore entry (`sparkpersist.metastore`). What
 * `CREATE TABLE` asks of a new shard, the table of each view, and time travel are the same in both.
 */
object ShardTables {

  /** Table properties Spark itself sets on CREATE TABLE; they carry nothing for a shard. */
  val SparkProperties: Set[String] = Set(
    TableCatalog.PROP_OWNER, TableCatalog.PROP_PROVIDER, TableCatalog.PROP_COMMENT,
    TableCatalog.PROP_EXTERNAL, TableCatalog.PROP_IS_MANAGED_LOCATION, TableCatalog.PROP_COLLATION,
    TableCatalog.PROP_TABLE_TYPE)

  /** The table properties a shard takes at creation. */
  val ShardProperties: Set[String] =
    Set(PersistCatalog.OrderBy, IndexColumns.Property, ClusterColumns.Property, IsolationLevel.Property,
      IcebergProperty.Property)

  /**
   * The schema of a new shard for `CREATE TABLE tableName (columns) [CLUSTER BY ...] TBLPROPERTIES (...)`:
   * the columns, the order key (`order_by`), index and clustering columns and isolation level. Any other
   * property but Spark's own, and any partitioning, is refused saying what to use instead.
   */
  def definition(tableName: String, columns: Array[Column], partitions: Array[Transform],
      properties: Map[String, String]): ShardSchema = {
    val clusterBy = partitions.toSeq.map {
      case ClusterByTransform(columns) => columns.map(_.fieldNames().mkString("."))
      case _ => throw PersistErrors.unsupported(
        s"Persist table $tableName cannot be partitioned", "parts are pruned by their statistics. " +
          s"Drop PARTITIONED BY; use CLUSTER BY (columns) to lay rows out by other columns than time, or the " +
          s"'${PersistCatalog.OrderBy}' table property to sort them.")
    }
    val unknown = properties.keySet.filterNot(k => ShardProperties(k) || SparkProperties(k))
    if (unknown.nonEmpty) {
      throw PersistErrors.invalidOption(
        s"Unsupported table properties for $tableName", s"${unknown.toSeq.sorted.mkString(", ")}. " +
          s"The persist table properties are '${PersistCatalog.OrderBy}', '${IndexColumns.Property}' and " +
          s"'${ClusterColumns.Property}' (comma-separated columns), '${IsolationLevel.Property}' and '${IcebergProperty.Property}'.")
    }
    val context = s"Cannot create table $tableName"
    val clustering = (clusterBy ++ properties.get(ClusterColumns.Property).map(ClusterColumns.parse)) match {
      case Seq() => Nil
      case Seq(columns) => columns
      case _ => throw PersistErrors.invalidOption(context, "CLUSTER BY and the table property " +
        s"'${ClusterColumns.Property}' both name clustering columns. Keep one")
    }
    val orderBy = properties.get(PersistCatalog.OrderBy).toSeq
      .flatMap(_.split(",")).map(_.trim).filter(_.nonEmpty)
    val schema = ShardSchema.fromStruct(struct(columns), orderBy, context)
    val indexed = IndexColumns.set(schema, properties.get(IndexColumns.Property).toSeq.flatMap(IndexColumns.parse), context)
    val isolation = properties.get(IsolationLevel.Property).map(IsolationLevel.parse(_, context))
    val iceberg = properties.get(IcebergProperty.Property).exists(IcebergProperty.parse(_, context))
    IcebergProperty.set(IsolationLevel.set(ClusterColumns.set(indexed, clustering, context), isolation), iceberg)
  }

  /** The columns of CREATE TABLE as a struct, comments kept. */
  def struct(columns: Array[Column]): StructType = StructType(columns.map { c =>
    val field = StructField(c.name(), c.dataType(), c.nullable())
    Option(c.comment()).map(field.withComment).getOrElse(field)
  })

  /** The table `tableName` of `view` of `shard`, its properties the shard's and `more` (what a catalog adds). */
  def load(shard: ShardHandle, view: TableView, tableName: String, more: Map[String, String] = Map.empty): Table =
    view match {
      case TableView.Parts => new PartsTable(shard, tableName)
      case TableView.Batches => new BatchesTable(shard, tableName)
      case TableView.History => new HistoryTable(shard, tableName)
      case _ => data(shard, view, tableName, more)
    }

  /** The snapshot or updates table of `shard` ([[load]]). */
  def data(shard: ShardHandle, view: TableView, tableName: String, more: Map[String, String] = Map.empty): PersistTable = {
    val state = shard.state
    val properties = more ++ Map(
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

  /** `table` read as of `asOf` its shard ([[TimeTravel]]); `what` names the clause for the error on a metadata view. */
  def travelled(table: Table, what: String)(asOf: ShardHandle => Long): Table = table match {
    case t: PersistTable => t.travelledTo(asOf(t.shard))
    case other => throw PersistErrors.unsupported(s"${other.name()} cannot be read $what", "it shows the " +
      "shard's metadata as it is now. Read the shard's table or its .updates view as of a time instead.")
  }

  /** The properties `changes` leave of `properties` (ALTER TABLE SET / UNSET TBLPROPERTIES). */
  def changedProperties(properties: Map[String, String], changes: Seq[TableChange]): Map[String, String] =
    changes.foldLeft(properties) {
      case (props, set: TableChange.SetProperty) => props + (set.property() -> set.value())
      case (props, unset: TableChange.RemoveProperty) => props - unset.property()
      case (props, _) => props
    }
}
