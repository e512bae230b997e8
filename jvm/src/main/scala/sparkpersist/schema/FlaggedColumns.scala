package sparkpersist.schema

import org.apache.spark.sql.types.DataType

import sparkpersist.errors.PersistErrors

/**
 * The checks of a table setting that flags named columns of a shard (index columns, clustering
 * columns): the names must be top-level columns, and the flagged columns of types the setting
 * supports. Failures are `IllegalArgumentException`s that start with `context` and say what to do.
 */
object FlaggedColumns {

  /** The ids of the columns `names` name, in that order; refuses names that are not columns, naming `setting`. */
  def ids(schema: ShardSchema, names: Seq[String], setting: String, context: String): Seq[Int] = {
    val unknown = names.filter(schema.column(_).isEmpty)
    if (unknown.nonEmpty) {
      refuse(context, s"$setting names ${unknown.map(n => s"'$n'").mkString(", ")}, not column(s) of the table " +
        s"(columns: ${schema.columns.map(_.name).mkString(", ")}). Name top-level columns")
    }
    names.flatMap(schema.column(_)).map(_.id)
  }

  /**
   * `schema`, after checking that every column `flagged` marks has a type `supports` accepts; else
   * refuses with `why`, given the offending columns as `'name' (TYPE), ...`.
   */
  def requireTypes(schema: ShardSchema, context: String)(flagged: ColumnDef => Boolean, supports: DataType => Boolean)(
      why: String => String): ShardSchema = {
    val unsupported = schema.columns.filter(c => flagged(c) && !supports(c.dataType))
    if (unsupported.nonEmpty) refuse(context, why(unsupported.map(c => s"'${c.name}' (${c.dataType.sql})").mkString(", ")))
    schema
  }

  def refuse(context: String, why: String): Nothing = throw PersistErrors.invalidSchema(context, s"$why.")
}
