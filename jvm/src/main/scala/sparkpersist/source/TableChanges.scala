package sparkpersist.source

import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.types.StructField

import sparkpersist.schema.{ColumnPosition, SchemaEvolution, ShardSchema}

/**
 * `ALTER TABLE` on a persist table: Spark's [[TableChange]]s as changes of the shard's schema
 * ([[SchemaEvolution]]), applied in order. Columns are top-level columns, but for fields added to
 * structs; other changes inside structs, table properties and column defaults are refused with
 * what to do instead.
 */
object TableChanges {

  def applyAll(schema: ShardSchema, changes: Seq[TableChange], context: String): ShardSchema =
    changes.foldLeft(schema)((s, change) => applyOne(s, change, context))

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
      val name = column(drop.fieldNames(), context)
      if (drop.ifExists() && schema.column(name).isEmpty) schema
      else SchemaEvolution.dropColumn(schema, name, context)
    case rename: TableChange.RenameColumn =>
      SchemaEvolution.renameColumn(schema, column(rename.fieldNames(), context), rename.newName(), context)
    case retype: TableChange.UpdateColumnType =>
      SchemaEvolution.changeType(schema, column(retype.fieldNames(), context), retype.newDataType(), context)
    case nullability: TableChange.UpdateColumnNullability =>
      SchemaEvolution.changeNullability(schema, column(nullability.fieldNames(), context), nullability.nullable(),
        context)
    case comment: TableChange.UpdateColumnComment =>
      SchemaEvolution.changeComment(schema, column(comment.fieldNames(), context), comment.newComment(), context)
    case move: TableChange.UpdateColumnPosition =>
      SchemaEvolution.moveColumn(schema, column(move.fieldNames(), context), position(move.position()), context)
    case other =>
      refuse(context, s"${other.getClass.getSimpleName} is not supported. A persist table accepts ADD COLUMN(S), " +
        "DROP COLUMN, RENAME COLUMN, ALTER COLUMN TYPE (widening), DROP NOT NULL, COMMENT and FIRST/AFTER; its " +
        s"only property is '${PersistCatalog.OrderBy}', set at creation")
  }

  /** The top-level column `names` denotes; a nested field is refused. */
  private def column(names: Array[String], context: String): String =
    if (names.length == 1) names.head
    else refuse(context, s"'${names.mkString(".")}' is a field inside a struct: struct fields are matched by " +
      "name inside parts, so they can be added (ADD COLUMN struct.field), but not dropped, renamed or retyped " +
      "in place. Add a new top-level column instead")

  private def position(p: TableChange.ColumnPosition): ColumnPosition = p match {
    case null => ColumnPosition.Last
    case after: TableChange.After => ColumnPosition.After(after.column())
    case _ => ColumnPosition.First
  }

  private def refuse(context: String, why: String): Nothing =
    throw new UnsupportedOperationException(s"$context: $why.")
}
