package sparkpersist.shard

import org.apache.spark.sql.types.{StructField, StructType}

import sparkpersist.schema.{NestedFieldIds, NestedNullability, ReservedColumns, ShardSchema}

/**
 * How a shard's parts are laid out as Parquet files, so that a part read alone describes itself:
 *  - columns: the data columns in schema order, then `time` and `diff` (bigint) — except in a
 *    *stamped* part, whose updates all have one time and diff +1 (an append stamped with its
 *    commit time): it stores only the data columns and names its time in the footer
 *    ([[TimeKey]]), so the two reserved columns cost nothing to write or read;
 *  - Parquet field ids: each data column's stable column id, each field inside its structs its
 *    id where it has one ([[NestedFieldIds]]), and
 *    [[ReservedColumns.TimeFieldId]] / [[ReservedColumns.DiffFieldId]] for `time` / `diff`;
 *  - footer key/value metadata: [[FormatVersionKey]], [[SchemaKey]], [[OrderByKey]], [[ShardKey]],
 *    and [[TimeKey]] in stamped parts.
 *
 * It lives beside the state, below both `write` (which lays parts out so, with the Parquet settings
 * of `sparkpersist.write.PartWriteSettings`) and `read` (which checks a part's format version), so
 * that neither depends on the other.
 */
object PartFormat {
  /** Footer key: the part format version ([[ShardState.FormatVersion]]). */
  val FormatVersionKey = "sparkpersist.format.version"
  /** Footer key: the shard's logical schema, a Spark StructType JSON whose fields carry their ids. */
  val SchemaKey = "sparkpersist.schema"
  /** Footer key: the shard's order key, comma-separated column names. */
  val OrderByKey = "sparkpersist.orderBy"
  /** Footer key: the shard's name. */
  val ShardKey = "sparkpersist.shard"
  /**
   * Footer key of a stamped part: the time (epoch milliseconds) of every update in it, each with
   * diff +1; the part has no `time` and `diff` columns.
   */
  val TimeKey = "sparkpersist.time"

  /** Field metadata key Spark's Parquet writer reads field ids from. */
  val FieldIdKey = "parquet.field.id"

  /** Every footer key a part may carry. */
  val footerKeys: Seq[String] = Seq(FormatVersionKey, SchemaKey, OrderByKey, ShardKey, TimeKey)

  private def withId(field: StructField, id: Int): StructField = NestedFieldIds.withId(field, FieldIdKey, id)

  /**
   * The data columns, each carrying its stable column id as field metadata, and each field inside
   * their structs its id ([[NestedFieldIds]]) where it has one. With `relaxed`, every level inside
   * a column is nullable ([[NestedNullability]]).
   */
  def logicalSchema(schema: ShardSchema, relaxed: Boolean = false): StructType =
    StructType(schema.columns.map { c =>
      val stored = if (relaxed) NestedNullability.relaxed(c.dataType) else c.dataType
      withId(c.toField.copy(dataType = NestedFieldIds.annotate(stored, c.fieldIds, FieldIdKey)), c.id)
    })

  /**
   * The Parquet schema of a part, all fields with ids: the data columns, then `time` and `diff`
   * unless the part is stamped. Every level inside a column is optional, whatever the shard
   * declares ([[NestedNullability]]): a null there is then stored as a null, never as a value left
   * out of a `required` field, which no reader could read back. Top-level columns keep their
   * nullability (every writer checks top-level NOT NULL before a row reaches a part).
   */
  def partSchema(schema: ShardSchema, stamped: Boolean): StructType =
    if (stamped) logicalSchema(schema, relaxed = true)
    else {
      val Seq(time, diff) = ReservedColumns.fields
      StructType(logicalSchema(schema, relaxed = true).fields ++
        Seq(withId(time, ReservedColumns.TimeFieldId), withId(diff, ReservedColumns.DiffFieldId)))
    }

  /** The footer key/value metadata of the parts of `shard`, stamped with `stampTime` if given. */
  def footer(shard: String, schema: ShardSchema, stampTime: Option[Long]): Map[String, String] = Map(
    FormatVersionKey -> ShardState.FormatVersion.toString,
    SchemaKey -> logicalSchema(schema).json,
    OrderByKey -> schema.orderBy.mkString(","),
    ShardKey -> shard) ++ stampTime.map(TimeKey -> _.toString)
}
