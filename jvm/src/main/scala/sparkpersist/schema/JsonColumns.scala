package sparkpersist.schema

import java.util.Locale

import org.apache.spark.sql.types.{Metadata, MetadataBuilder, StringType, StructType}

import sparkpersist.errors.PersistErrors

/**
 * String columns declared to hold JSON text. A declared column gets JSON statistics
 * ([[sparkpersist.stats.JsonTextCollector]]), so filters through `get_json_object` can prune.
 *
 * The declaration lives in the shard schema, as the column metadata `sparkpersist.json = true`.
 * It is made either by that metadata on the DataFrame column that creates the shard, or by the
 * writer option `jsonColumns` (Python `json_columns`) on the write that creates the shard, which
 * records the metadata. On later writes the option may be omitted; if given, it must name exactly
 * the shard's JSON columns. Metadata on a column of another type is ignored (VARIANT columns
 * always get JSON statistics).
 */
object JsonColumns {
  val MetadataKey = "sparkpersist.json"

  def isDeclared(column: ColumnDef): Boolean =
    column.dataType.isInstanceOf[StringType] && isMarked(column.metadata)

  private def isMarked(m: Metadata): Boolean =
    m.contains(MetadataKey) && (try m.getBoolean(MetadataKey) catch { case _: ClassCastException => false })

  /** The names of the shard's JSON columns, in column order. */
  def declared(schema: ShardSchema): Seq[String] = schema.columns.filter(isDeclared).map(_.name)

  /** `struct` with the columns `names` (ignoring case) marked as JSON; each must be a string. */
  def declare(shardName: String, struct: StructType, names: Seq[String]): StructType = {
    names.foreach { n =>
      val field = struct.fields.find(_.name.equalsIgnoreCase(n)).getOrElse(fail(shardName,
        s"json_columns names '$n', which is not a column (columns: ${struct.fieldNames.mkString(", ")})."))
      if (!field.dataType.isInstanceOf[StringType]) {
        fail(shardName, s"json_columns names '${field.name}', which is ${field.dataType.sql}; only STRING " +
          "columns can be declared JSON (VARIANT columns get JSON statistics without it).")
      }
    }
    StructType(struct.fields.map { f =>
      if (!names.exists(_.equalsIgnoreCase(f.name))) f
      else f.copy(metadata = new MetadataBuilder().withMetadata(f.metadata).putBoolean(MetadataKey, true).build())
    })
  }

  /** Checks a later write's `jsonColumns` against the shard: absent, or exactly its JSON columns. */
  def checkWrite(shardName: String, schema: ShardSchema, names: Seq[String]): Unit = {
    val declaredNames = declared(schema)
    def key(ns: Seq[String]) = ns.map(_.toLowerCase(Locale.ROOT)).toSet
    if (names.nonEmpty && key(names) != key(declaredNames)) {
      fail(shardName, s"its JSON columns are (${declaredNames.mkString(", ")}), fixed when the shard was " +
        s"created; json_columns (${names.mkString(", ")}) differs. Omit json_columns or pass exactly those.")
    }
  }

  private def fail(shardName: String, msg: String): Nothing = throw PersistErrors.invalidWrite(shardName, msg)
}
