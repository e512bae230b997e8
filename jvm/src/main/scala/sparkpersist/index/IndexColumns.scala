package sparkpersist.index

import org.apache.spark.sql.types.{ArrayType, DataType}

import sparkpersist.schema.{FlaggedColumns, ShardSchema}
import sparkpersist.stats.MembershipFilter

/**
 * The table property [[Property]]: the columns whose parts every writer gives membership filters
 * ([[MembershipFilter]]), so `=`, `IN`, `<=>` and `array_contains` with constants skip parts that do
 * not hold the values. The shard's schema keeps it as a flag on each named column
 * ([[sparkpersist.schema.ColumnDef.indexed]]): it follows renames, and dropping a column drops it.
 * A write's `index_columns` option adds columns for that write only.
 */
object IndexColumns {
  /** Table property: comma-separated names of the index columns. */
  val Property = "sparkpersist.indexColumns"

  /** The column names of a property value (`"a, b"`), blanks dropped. */
  def parse(value: String): Seq[String] = value.split(",").toSeq.map(_.trim).filter(_.nonEmpty)

  /** The property's value for `schema`: its index columns by their current names, in column order. */
  def render(schema: ShardSchema): String = schema.columns.filter(_.indexed).map(_.name).mkString(",")

  /**
   * `schema` with exactly the columns `names` as index columns. Fails, saying why, on a name that is
   * not a column and on a column of a type membership filters cannot answer equality for.
   */
  def set(schema: ShardSchema, names: Seq[String], context: String): ShardSchema = {
    val ids = FlaggedColumns.ids(schema, names, Property, context).toSet
    check(schema.copy(columns = schema.columns.map(c => c.copy(indexed = ids(c.id)))), context)
  }

  /** `schema`, after checking that every index column still has a type filters support (a type change may break it). */
  def check(schema: ShardSchema, context: String): ShardSchema =
    FlaggedColumns.requireTypes(schema, context)(_.indexed, supports) { columns =>
      s"$Property cannot index $columns: membership filters hold integral, date, timestamp, float, double, decimal " +
        "or UTF8_BINARY string values, or arrays of them. Remove the column from the property"
    }

  /** Whether a column of `dt` can be an index column: a type filters hold, or an array of one (its elements). */
  def supports(dt: DataType): Boolean = dt match {
    case ArrayType(et, _) => MembershipFilter.supports(et)
    case t => MembershipFilter.supports(t)
  }
}
