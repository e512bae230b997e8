package sparkpersist.catalog

import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.connector.expressions.NamedReference
import org.apache.spark.sql.types.StructField

import sparkpersist.cluster.ClusterColumns
import sparkpersist.errors.PersistErrors
import sparkpersist.iceberg.IcebergProperty
import sparkpersist.index.IndexColumns
import sparkpersist.isolation.IsolationLevel
import sparkpersist.schema.{ColumnPosition, SchemaEvolution, ShardSchema}

/**
 * `ALTER TABLE` on a persist table: Spark's [[TableChange]]s as changes of the shard's schema
 * ([[SchemaEvolution]]), applied in order. Fields inside structs may be added, dropped, renamed
 * (when they have ids, [[sparkpersist.schema.NestedFieldIds]]) and widened, and any level inside a
 * column (struct field, array element, map value) may lose its NOT NULL; their other changes,
 * column defaults and table properties but [[IndexColumns.Property]], [[ClusterColumns.Property]],
 * [[IsolationLevel.Property]] and [[sparkpersist.iceberg.IcebergProperty.Property]] are
 * refused with what to do instead. `CLUSTER BY (columns)` / `CLUSTER BY NONE` set the clustering columns.
 */
object TableChanges {

  def applyAll(schema: ShardSchema, changes: Seq[TableChange], context: String): ShardSchema =
    ClusterColumns.check(
      IndexColumns.check(changes.foldLeft(schema)((s, change) => applyOne(s, change, context)), context), context)

  private def applyOne(schema: ShardSchema, change: TableChange, context: String): ShardSchema = change match {
    case add: TableChange.AddColumn =>
      if (add.defaultValue() != null) {
        refuse(context, s"column '${add.fieldNames().mkString(".")}' has a DEFAULT; parts written before it " +
          "hold no value for it and read it as null. Add it without DEFAULT")
      }
      val names = add.fieldNames().toSeq
      val field = StructField(names.last, add.dataType(), add.isNullable())
      val commented = Option(add.comment()).fold(field)(field.withComment)
      if (names.size == 1) SchemaEvolution.addColumn(schema, commented, position(add.position()), context)
      else if (add.position() != null) refuse(context, s"a field added inside a struct goes after its other fields: " +
        s"drop FIRST/AFTER from '${names.mkString(".")}'")
      else SchemaEvolution.addField(schema, names.init, commented, context)
    case drop: TableChange.DeleteColumn =>
      val names = drop.fieldNames().toSeq
      if (names.size > 1) SchemaEvolution.dropField(schema, names, context)
      else if (drop.ifExists() && schema.column(names.head).isEmpty) schema
      else SchemaEvolution.dropColumn(schema, names.head, context)
    case rename: TableChange.RenameColumn =>
      val names = rename.fieldNames().toSeq
      if (names.size > 1) SchemaEvolution.renameField(schema, names, rename.newName(), context)
      else SchemaEvolution.renameColumn(schema, names.head, rename.newName(), context)
    case retype: TableChange.UpdateColumnType =>
      val names = retype.fieldNames().toSeq
      if (names.size > 1) SchemaEvolution.changeFieldType(schema, names, retype.newDataType(), context)
      else SchemaEvolution.changeType(schema, names.head, retype.newDataType(), context)
    case nullability: TableChange.UpdateColumnNullability =>
      SchemaEvolution.changeNullability(schema, nullability.fieldNames().toSeq, nullability.nullable(), context)
    case comment: TableChange.UpdateColumnComment =>
      SchemaEvolution.changeComment(schema, column(comment.fieldNames(), context), comment.newComment(), context)
    case move: TableChange.UpdateColumnPosition =>
      SchemaEvolution.moveColumn(schema, column(move.fieldNames(), context), position(move.position()), context)
    case set: TableChange.SetProperty if set.property() == IndexColumns.Property =>
      IndexColumns.set(schema, IndexColumns.parse(set.value()), context)
    case unset: TableChange.RemoveProperty if unset.property() == IndexColumns.Property =>
      IndexColumns.set(schema, Nil, context)
    case cluster: TableChange.ClusterBy => clusterBy(schema, cluster.clusteringColumns().toSeq, context)
    case ParsedByDelta(columns) => clusterBy(schema, columns, context)
    case set: TableChange.SetProperty if set.property() == ClusterColumns.Property =>
      ClusterColumns.set(schema, ClusterColumns.parse(set.value()), context)
    case unset: TableChange.RemoveProperty if unset.property() == ClusterColumns.Property =>
      ClusterColumns.set(schema, Nil, context)
    case set: TableChange.SetProperty if set.property() == IsolationLevel.Property =>
      IsolationLevel.set(schema, Some(IsolationLevel.parse(set.value(), context)))
    case unset: TableChange.RemoveProperty if unset.property() == IsolationLevel.Property =>
      IsolationLevel.set(schema, None)
    case set: TableChange.SetProperty if set.property() == IcebergProperty.Property =>
      IcebergProperty.set(schema, IcebergProperty.parse(set.value(), context))
    case unset: TableChange.RemoveProperty if unset.property() == IcebergProperty.Property =>
      IcebergProperty.set(schema, on = false)
    case other =>
      refuse(context, s"${other.getClass.getSimpleName} is not supported. A persist table accepts ADD COLUMN(S), " +
        "DROP COLUMN, RENAME COLUMN, ALTER COLUMN TYPE (widening), DROP NOT NULL, COMMENT, FIRST/AFTER and CLUSTER BY; " +
        s"its properties are '${PersistCatalog.OrderBy}', set at creation, '${IndexColumns.Property}', " +
        s"'${ClusterColumns.Property}', '${IsolationLevel.Property}' and '${IcebergProperty.Property}'")
  }

  private def clusterBy(schema: ShardSchema, columns: Seq[NamedReference], context: String): ShardSchema =
    ClusterColumns.set(schema, columns.map(c => column(c.fieldNames(), context)), context)

  /**
   * `ALTER TABLE … CLUSTER BY` as Delta Lake's SQL extension parses it, when a session runs both:
   * Delta's own `ClusterBy` change (a case class of the clustering columns, kept from before Spark
   * had one), matched by shape so that sparkpersist needs no Delta classes.
   */
  private object ParsedByDelta {
    def unapply(change: TableChange): Option[Seq[NamedReference]] = change match {
      case p: Product if p.productPrefix == "ClusterBy" && p.productArity == 1 => p.productElement(0) match {
        case columns: Seq[_] if columns.forall(_.isInstanceOf[NamedReference]) =>
          Some(columns.map(_.asInstanceOf[NamedReference]))
        case _ => None
      }
      case _ => None
    }
  }

  /** The top-level column `names` denotes; a nested field is refused. */
  private def column(names: Array[String], context: String): String =
    if (names.length == 1) names.head
    else refuse(context, s"'${names.mkString(".")}' is a field inside a struct: fields inside structs can be " +
      "added, dropped, renamed, widened and made nullable, but keep their comment. Change the struct column " +
      "instead")

  private def position(p: TableChange.ColumnPosition): ColumnPosition = p match {
    case null => ColumnPosition.Last
    case after: TableChange.After => ColumnPosition.After(after.column())
    case _ => ColumnPosition.First
  }

  private def refuse(context: String, why: String): Nothing = throw PersistErrors.unsupported(context, s"$why.")
}
