package sparkpersist.schema

import org.apache.spark.sql.catalyst.util.CharVarcharUtils
import org.apache.spark.sql.types.{DataType, MetadataBuilder, StructField, StructType}

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
      throw new IllegalArgumentException(s"$context: an added column must be nullable ('${field.name}' is " +
        "NOT NULL), since parts written before it hold no value for it: add it without NOT NULL.")
    }
    val stored = CharVarcharUtils.replaceCharVarcharWithStringInSchema(StructType(Seq(field))).head
    val id = schema.nextColumnId
    val added = ColumnDef(id, stored.name, stored.dataType, nullable = true, stored.metadata)
    val columns = schema.columns
    val at = indexFor(schema, position, context)
    checked(schema.copy(columns = (columns.take(at) :+ added) ++ columns.drop(at), maxColumnId = id), context)
  }

  /**
   * Adds `field` (nullable) at the end of the struct at `path` (a struct column, then names of
   * struct fields inside it). Parts written before read it as null.
   */
  def addField(schema: ShardSchema, path: Seq[String], field: StructField, context: String): ShardSchema = {
    if (!field.nullable) {
      throw new IllegalArgumentException(s"$context: an added field must be nullable ('${field.name}' is " +
        "NOT NULL), since parts written before it hold no value for it: add it without NOT NULL.")
    }
    val c = existing(schema, path.head, context)
    val stored = CharVarcharUtils.replaceCharVarcharWithStringInSchema(StructType(Seq(field))).head
    def inside(dt: DataType, rest: Seq[String]): DataType = (dt, rest) match {
      case (s: StructType, Seq()) => s.add(stored)
      case (s: StructType, Seq(name, more @ _*)) if s.fieldNames.count(_ == name) == 1 =>
        StructType(s.fields.map(f => if (f.name == name) f.copy(dataType = inside(f.dataType, more)) else f))
      case _ => throw new IllegalArgumentException(s"$context: '${path.mkString(".")}' is not a struct " +
        "(or a struct inside structs) of the shard, so no field can be added to it.")
    }
    checked(replace(schema, c.copy(dataType = inside(c.dataType, path.tail))), context)
  }

  def dropColumn(schema: ShardSchema, name: String, context: String): ShardSchema = {
    val c = existing(schema, name, context)
    if (schema.orderBy.exists(_.equalsIgnoreCase(c.name))) {
      throw new IllegalArgumentException(s"$context: column '${c.name}' is in the shard's order key " +
        s"(${schema.orderBy.mkString(", ")}) and cannot be dropped.")
    }
    if (schema.columns.size == 1) {
      throw new IllegalArgumentException(s"$context: '${c.name}' is the shard's only column; a shard keeps at least one.")
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
      throw new IllegalArgumentException(s"$context: column '${c.name}' cannot change type from " +
        s"${c.declaredType.sql} to ${newType.sql}. A shard column's type may only widen without changing " +
        s"any value: ${TypeWidening.described}. For another type, create a new shard and copy the data " +
        "with INSERT INTO ... SELECT CAST(...).")
    } else checked(replace(schema, c.copy(dataType = newType)), context)
  }

  def changeNullability(schema: ShardSchema, name: String, nullable: Boolean, context: String): ShardSchema = {
    val c = existing(schema, name, context)
    if (c.nullable == nullable) schema
    else if (!nullable) {
      throw new IllegalArgumentException(s"$context: column '${c.name}' cannot become NOT NULL: parts " +
        "already written are not checked again. Only NOT NULL to nullable is accepted.")
    } else checked(replace(schema, c.copy(nullable = true)), context)
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
   * identity (a type may only widen), and every new id is above every id `before` ever gave.
   */
  def requireSuccessor(before: ShardSchema, after: ShardSchema, shard: String): Unit = {
    val fresh = before.nextColumnId
    after.columns.foreach { c =>
      before.columnById(c.id) match {
        case Some(old) =>
          require(old.dataType == c.dataType || TypeWidening.widens(old.dataType, c.dataType) ||
            TypeWidening.addsFields(old.dataType, c.dataType),
            s"Shard '$shard': column id ${c.id} cannot change type from ${old.dataType.sql} to ${c.dataType.sql}")
        case None =>
          require(c.id >= fresh, s"Shard '$shard': new column '${c.name}' must get an id >= $fresh, not ${c.id} " +
            "(ids of dropped columns are never given again)")
      }
    }
    require(after.nextColumnId >= fresh, s"Shard '$shard': the highest column id cannot go back")
  }

  private def existing(schema: ShardSchema, name: String, context: String): ColumnDef =
    schema.column(name).getOrElse(throw new IllegalArgumentException(
      s"$context: '$name' is not a column of the shard (columns: ${schema.columns.map(_.name).mkString(", ")})."))

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
