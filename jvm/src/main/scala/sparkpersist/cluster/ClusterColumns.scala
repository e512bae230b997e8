package sparkpersist.cluster

import org.apache.spark.sql.types._

import sparkpersist.schema.{FlaggedColumns, ShardSchema}

/**
 * The clustering columns of a shard: `CREATE TABLE … CLUSTER BY (a, b)`, `ALTER TABLE … CLUSTER BY`,
 * or the table property [[Property]] name them. The shard's schema
 * keeps them as a flag on each column ([[sparkpersist.schema.ColumnDef.clustered]]): it follows
 * renames, and dropping a column drops it. Compaction then lays each time window's rows out along
 * a space-filling curve of these columns ([[ClusteredRows]]).
 */
object ClusterColumns {
  /** Table property: comma-separated names of the clustering columns. */
  val Property = "sparkpersist.clusterBy"

  /** Most clustering columns: past a few, a curve separates none of them well (Delta allows 4). */
  val MaxColumns = 4

  /** The property value (and `CLUSTER BY` "column") that asks for columns chosen from the workload ([[AutoClustering]]). */
  val Auto = "auto"

  /** The column names of a property value (`"a, b"`), blanks dropped. */
  def parse(value: String): Seq[String] = value.split(",").toSeq.map(_.trim).filter(_.nonEmpty)

  /** The property's value for `schema`: its clustering columns by their current names, in column order, or `auto`. */
  def render(schema: ShardSchema): String =
    if (schema.clusterAuto) Auto else schema.columns.filter(_.clustered).map(_.name).mkString(",")

  /**
   * `schema` with exactly the columns `names` as clustering columns (none: not clustered), or with
   * columns chosen from the workload when `names` is just [[Auto]] (and the table has no column of
   * that name). Fails, saying why, on a name that is not a column, on a repeated name, on more than
   * [[MaxColumns]] and on a column of a type the curve cannot order.
   */
  def set(schema: ShardSchema, names: Seq[String], context: String): ShardSchema =
    if (names.map(_.toLowerCase(java.util.Locale.ROOT)) == Seq(Auto) && schema.column(Auto).isEmpty)
      schema.copy(columns = schema.columns.map(_.copy(clustered = false)), clusterAuto = true)
    else named(schema.copy(clusterAuto = false), names, context)

  private def named(schema: ShardSchema, names: Seq[String], context: String): ShardSchema = {
    val ids = FlaggedColumns.ids(schema, names, "CLUSTER BY", context)
    if (ids.distinct.size != ids.size) refuse(context, s"CLUSTER BY names a column twice: ${names.mkString(", ")}")
    if (ids.size > MaxColumns) {
      refuse(context, s"CLUSTER BY names ${ids.size} columns; at most $MaxColumns: a space-filling curve over more " +
        "separates none of them well. Keep the columns filters constrain most")
    }
    check(schema.copy(columns = schema.columns.map(c => c.copy(clustered = ids.contains(c.id)))), context)
  }

  /** `schema`, after checking that every clustering column still has a type the curve orders (a type change may break it). */
  def check(schema: ShardSchema, context: String): ShardSchema =
    FlaggedColumns.requireTypes(schema, context)(_.clustered, supports) { columns =>
      s"cannot cluster by $columns: clustering columns are boolean, integral, float, double, decimal, date, timestamp, " +
        "UTF8_BINARY string or binary columns. Cluster by other columns, or by none"
    }

  /** Whether a column of `dt` can be a clustering column: an atomic type with a total order [[ColumnRanks]] ranks. */
  def supports(dt: DataType): Boolean = dt match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | DateType |
         TimestampType | TimestampNTZType | BinaryType => true
    case _: DecimalType => true
    case s: StringType => s.collationId == StringType.collationId
    case _ => false
  }

  private def refuse(context: String, why: String): Nothing = FlaggedColumns.refuse(context, why)
}
