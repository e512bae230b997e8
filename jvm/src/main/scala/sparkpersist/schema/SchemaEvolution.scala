package sparkpersist.schema

import org.apache.spark.sql.catalyst.util.CharVarcharUtils
import org.apache.spark.sql.types.{DataType, MetadataBuilder, StructField, StructType}

import sparkpersist.errors.PersistErrors

/** Where an added or moved column goes among a shard's columns. */
sealed trait ColumnPosition

object ColumnPosition {
  case object Last extends ColumnPosition
  case object First extends ColumnPosition
  final case class After(column: String) extends ColumnPosition
}

/**
 * Changes to a shard's schema that keep its parts as they are: columns are matched by stable id
 * ([[ColumnDef.id]]), never by name, when parts are read and when their statistics are used.
 *
 *  - an added column gets a fresh id ([[ShardSchema.nextColumnId]]); parts written before it
 *    have no such field, and read it as null;
 *  - a dropped column's id is never given again, so a column added later under the same name
 *    never shows the dropped data;
 *  - a renamed column keeps its id, so parts written under the old name keep their data;
 *  - a column's type may widen as [[TypeWidening]] allows.
 *
 * Every function takes the schema to change and the `context` its errors start with (for
 * example "Cannot alter table persist.events"), and returns the new schema, checked as a new
 * shard's is: names not reserved, distinct ignoring case ([[ColumnNames]]), types storable
 * ([[StorableTypes]]).
 */
object SchemaEvolution {

  def addColumn(schema: ShardSchema, field: StructField, position: ColumnPosition, context: String): ShardSchema = {
    if (!field.nullable) {
      throw PersistErrors.invalidSchema(context, s"an added column must be nullable ('${field.name}' is " +
        "NOT NULL), since parts written before it hold no value for it: add it without NOT NULL.")
    }
    val stored = CharVarcharUtils.replaceCharVarcharWithStringInSchema(StructType(Seq(field))).head
    val id = schema.nextColumnId
    val fieldIds = NestedFieldIds.assign(stored.dataType, Nil, id + 1)
    val added = ColumnDef(id, stored.name, stored.dataType, nullable = true, stored.metadata, fieldIds)
    val columns = schema.columns
    val at = indexFor(schema, position, context)
    checked(schema.copy(columns = (columns.take(at) :+ added) ++ columns.drop(at), maxColumnId = id + fieldIds.size),
      context)
  }

  /**
   * Adds `field` (nullable) at the end of the struct at `path` (a struct column, then names of
   * struct fields inside it), with a fresh id, and fresh ids for the fields inside it. Parts
   * written before read it as null.
   */
  def addField(schema: ShardSchema, path: Seq[String], field: StructField, context: String): ShardSchema = {
    if (!field.nullable) {
      throw PersistErrors.invalidSchema(context, s"an added field must be nullable ('${field.name}' is " +
        "NOT NULL), since parts written before it hold no value for it: add it without NOT NULL.")
    }
    val c = existing(schema, path.head, context)
    val stored = CharVarcharUtils.replaceCharVarcharWithStringInSchema(StructType(Seq(field))).head
    val (structPath, dataType) = NestedFields.changeStruct(c.dataType, path.tail, context,
      s"'${path.mkString(".")}' is not a struct (or a struct inside structs) of the shard, so no field can be added to it")(
      _.add(stored))
    val id = schema.nextColumnId
    val fieldPath = structPath :+ stored.name
    val fieldIds = NestedFieldIds.assign(stored.dataType, fieldPath, id + 1)
    val added = c.copy(dataType = dataType, fieldIds = c.fieldIds ++ fieldIds + (fieldPath -> id))
    checked(replace(schema, added).copy(maxColumnId = id + fieldIds.size), context)
  }

  /**
   * Drops the field at `path` (a struct column, then names of struct fields inside it) with the
   * fields inside it. Its id is never given again: a field added later under its name reads null in
   * the parts written before. (A field without id, [[NestedFieldIds]], may be dropped too: a field
   * added again gets an id, which no old part holds.)
   */
  def dropField(schema: ShardSchema, path: Seq[String], context: String): ShardSchema = {
    val c = existing(schema, path.head, context)
    val (fieldPath, dataType) = NestedFields.changeField(c.dataType, path.tail, context, notAField(schema, path)) {
      (struct, i) =>
        if (struct.length == 1) {
          throw PersistErrors.invalidSchema(context, s"'${path.mkString(".")}' is the only field of its " +
            "struct; a struct keeps at least one field (drop the struct instead).")
        }
        StructType(struct.fields.patch(i, Nil, 1))
    }
    val dropped = c.copy(dataType = dataType, fieldIds = NestedFieldIds.without(c.fieldIds, fieldPath))
    checked(replace(schema, dropped).copy(maxColumnId = schema.nextColumnId - 1), context)
  }

  /**
   * Renames the field at `path` (a struct column, then names of struct fields inside it) to
   * `newName`. It keeps its id, so parts written under the old name keep its data; a field without
   * id (the shard was created before fields inside structs had ids) is refused, since parts match
   * it by name.
   */
  def renameField(schema: ShardSchema, path: Seq[String], newName: String, context: String): ShardSchema = {
    val c = existing(schema, path.head, context)
    val (fieldPath, dataType) = NestedFields.changeField(c.dataType, path.tail, context, notAField(schema, path)) {
      (struct, i) => StructType(struct.fields.updated(i, struct.fields(i).copy(name = newName)))
    }
    if (!c.fieldIds.contains(fieldPath)) {
      throw PersistErrors.invalidSchema(context, s"field '${path.mkString(".")}' has no field id: the shard " +
        "was created before sparkpersist gave ids to fields inside structs, so its parts match the field by " +
        "name and would lose its data under a new name. Add a new field (ADD COLUMN " +
        s"${path.init.mkString(".")}.$newName) and write it, or copy the data into a new shard.")
    }
    checked(replace(schema, c.copy(dataType = dataType, fieldIds = NestedFieldIds.renamed(c.fieldIds, fieldPath, newName))),
      context)
  }

  /** Changes the type of the field at `path` (a struct column, then names of struct fields inside it), as [[changeType]]. */
  def changeFieldType(schema: ShardSchema, path: Seq[String], newType: DataType, context: String): ShardSchema = {
    val c = existing(schema, path.head, context)
    val (_, dataType) = NestedFields.changeField(c.dataType, path.tail, context, notAField(schema, path)) {
      (struct, i) =>
        val f = struct.fields(i)
        if (f.dataType != newType && !TypeWidening.widens(f.dataType, newType)) {
          throw PersistErrors.invalidSchema(context, s"field '${path.mkString(".")}' cannot change type from " +
            s"${f.dataType.sql} to ${newType.sql}. ${TypeWidening.refusal}")
        }
        StructType(struct.fields.updated(i, f.copy(dataType = newType)))
    }
    checked(replace(schema, c.copy(dataType = dataType)), context)
  }

  private def notAField(schema: ShardSchema, path: Seq[String]): String =
    s"'${path.mkString(".")}' is not a field inside a struct column of the shard " +
      s"(columns: ${schema.columns.map(_.name).mkString(", ")})"

  def dropColumn(schema: ShardSchema, name: String, context: String): ShardSchema = {
    val c = existing(schema, name, context)
    if (schema.orderBy.exists(_.equalsIgnoreCase(c.name))) {
      throw PersistErrors.invalidSchema(context, s"column '${c.name}' is in the shard's order key " +
        s"(${schema.orderBy.mkString(", ")}) and cannot be dropped.")
    }
    if (schema.columns.size == 1) {
      throw PersistErrors.invalidSchema(context, s"'${c.name}' is the shard's only column; a shard keeps at least one.")
    }
    checked(schema.copy(columns = schema.columns.filterNot(_.id == c.id),
      maxColumnId = schema.nextColumnId - 1), context)
  }

  def renameColumn(schema: ShardSchema, name: String, newName: String, context: String): ShardSchema = {
    val c = existing(schema, name, context)
    ReservedColumns.requireNotReserved(newName)
    val orderBy = schema.orderBy.map(k => if (k.equalsIgnoreCase(c.name)) newName else k)
    checked(replace(schema, c.copy(name = newName)).copy(orderBy = orderBy), context)
  }

  def changeType(schema: ShardSchema, name: String, newType: DataType, context: String): ShardSchema = {
    val c = existing(schema, name, context)
    if (c.declaredType == newType) schema
    else if (!TypeWidening.widens(c.dataType, newType) || CharVarcharUtils.getRawType(c.metadata).isDefined) {
      throw PersistErrors.invalidSchema(context, s"column '${c.name}' cannot change type from " +
        s"${c.declaredType.sql} to ${newType.sql}. ${TypeWidening.refusal}")
    } else checked(replace(schema, c.copy(dataType = newType)), context)
  }

  /**
   * Makes the column at `path` nullable: a top-level column, or a level inside it (names of struct
   * fields, `element` of an array, `value` of a map; [[NestedNullability.relax]]). Parts already
   * written are not checked again, so nothing becomes NOT NULL.
   */
  def changeNullability(schema: ShardSchema, path: Seq[String], nullable: Boolean, context: String): ShardSchema = {
    val c = existing(schema, path.head, context)
    if (!nullable) {
      throw PersistErrors.invalidSchema(context, s"'${path.mkString(".")}' cannot become NOT NULL: parts " +
        "already written are not checked again. Only NOT NULL to nullable is accepted.")
    }
    val changed =
      if (path.size == 1) c.copy(nullable = true)
      else c.copy(dataType = NestedNullability.relax(c.dataType, path.tail, context,
        s"'${path.mkString(".")}' names no struct field, array element or map value inside column '${c.name}'"))
    if (changed == c) schema else checked(replace(schema, changed), context)
  }

  def changeComment(schema: ShardSchema, name: String, comment: String, context: String): ShardSchema = {
    val c = existing(schema, name, context)
    checked(replace(schema, c.copy(metadata = new MetadataBuilder().withMetadata(c.metadata).putString("comment", comment).build())),
      context)
  }

  def moveColumn(schema: ShardSchema, name: String, position: ColumnPosition, context: String): ShardSchema = {
    val c = existing(schema, name, context)
    val rest = schema.copy(columns = schema.columns.filterNot(_.id == c.id))
    val at = indexFor(rest, position, context)
    checked(schema.copy(columns = (rest.columns.take(at) :+ c) ++ rest.columns.drop(at)), context)
  }

  /**
   * Checks that `after` may follow `before` in a shard's history: ids kept keep their column's
   * identity (a type may only widen, [[ColumnEvolution]]), and every new id, of a column or of a
   * field inside one, is above every id `before` ever gave.
   */
  def requireSuccessor(before: ShardSchema, after: ShardSchema, shard: String): Unit = {
    val fresh = before.nextColumnId
    val known = before.columns.iterator.flatMap(_.allIds).toSet
    after.columns.iterator.flatMap(_.fieldIds).foreach { case (path, id) =>
      require(known(id) || id >= fresh, s"Shard '$shard': new field '${path.mkString(".")}' must get an id >= " +
        s"$fresh, not $id (ids of dropped fields are never given again)")
    }
    after.columns.foreach { c =>
      before.columnById(c.id) match {
        case Some(old) =>
          require(ColumnEvolution.follows(old, c),
            s"Shard '$shard': column id ${c.id} cannot change type from ${old.dataType.sql} to ${c.dataType.sql}")
        case None =>
          require(c.id >= fresh, s"Shard '$shard': new column '${c.name}' must get an id >= $fresh, not ${c.id} " +
            "(ids of dropped columns are never given again)")
      }
    }
    require(after.nextColumnId >= fresh, s"Shard '$shard': the highest column id cannot go back")
  }

  private def existing(schema: ShardSchema, name: String, context: String): ColumnDef =
    schema.column(name).getOrElse(throw PersistErrors.invalidSchema(
      context, s"'$name' is not a column of the shard (columns: ${schema.columns.map(_.name).mkString(", ")})."))

  private def replace(schema: ShardSchema, c: ColumnDef): ShardSchema =
    schema.copy(columns = schema.columns.map(old => if (old.id == c.id) c else old))

  private def indexFor(schema: ShardSchema, position: ColumnPosition, context: String): Int = position match {
    case ColumnPosition.Last => schema.columns.size
    case ColumnPosition.First => 0
    case ColumnPosition.After(name) => schema.columns.indexWhere(_.id == existing(schema, name, context).id) + 1
  }

  private def checked(schema: ShardSchema, context: String): ShardSchema = {
    val struct = schema.declaredSchema
    struct.fields.foreach(f => ReservedColumns.requireNotReserved(f.name))
    ColumnNames.requireDistinct(struct, context)
    StorableTypes.requireStorable(struct, context)
    schema.normalized
  }
}
