package sparkpersist.stream

import org.apache.spark.sql.types.StructType

import sparkpersist.errors.{PersistError, PersistThrowable}
import sparkpersist.schema.ShardSchema

/**
 * What a running stream does when its shard's schema changes ([[sparkpersist.schema.SchemaEvolution]]).
 * A stream's columns are fixed when its query starts. It keeps going across changes that leave
 * the columns it reads as they were — same name, id, type, nullability and ids inside — such as an added
 * column (which it shows once restarted). A change to a column it reads (renamed, dropped,
 * retyped, a field inside it changed) stops it with [[StreamSchemaChanged]]: its rows would no
 * longer match its columns. Restarting the query from its checkpoint continues where it stopped,
 * under the shard's current schema.
 */
object StreamSchemaCheck {

  /** Fails with [[StreamSchemaChanged]] if a column of `columns` (of `started`) is not the same in `now`. */
  def requireUnchanged(shard: String, columns: StructType, started: ShardSchema, now: ShardSchema): Unit =
    columns.fieldNames.iterator.flatMap(started.column).find { c =>
      !now.columnById(c.id).exists(n => n.name == c.name && n.dataType == c.dataType && n.nullable == c.nullable &&
        n.fieldIds == c.fieldIds)
    }.foreach(c => throw new StreamSchemaChanged(shard, c.name))
}

/** A running stream's shard changed a column the stream reads ([[StreamSchemaCheck]]). */
final class StreamSchemaChanged(val shard: String, val column: String)
  extends IllegalStateException with PersistThrowable {
  override def error: PersistError = PersistError("PERSIST_STREAM_SCHEMA_CHANGED", "shard" -> shard, "column" -> column)
}
