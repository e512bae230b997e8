package sparkpersist.schema

import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructField, StructType}

import sparkpersist.errors.PersistErrors

/**
 * Nullability inside a column: of array elements, map values and struct fields, at every depth.
 *
 * The rule a shard follows:
 *  - **Parts store every level inside a column as nullable** ([[relaxed]]), whatever the shard's
 *    schema says, as Spark's own file sources do. A Parquet field written `required` cannot hold a
 *    null: Spark's writer would leave the value out and the part could never be read again. So no
 *    value, whatever the schema or the session, can make a part unreadable.
 *  - **A shard created from a DataFrame** (the writer, `CREATE TABLE AS SELECT`) takes the DataFrame's
 *    types relaxed at every depth: an array literal is `array<int not null>` only because of how it
 *    was built, and the next day's batch, built from nullable columns, is not.
 *  - **`NOT NULL` declared in DDL** (a top-level column, or a struct field at any depth) is kept and
 *    checked on every write at every depth, with Spark's own `NOT_NULL_ASSERT_VIOLATION`, before
 *    anything commits. `ALTER TABLE … ALTER COLUMN a.b DROP NOT NULL` (also `a.element`,
 *    `a.value`) relaxes it ([[relax]]).
 */
object NestedNullability {

  /** `dt` with every level inside it nullable (the type itself keeps no nullability of its own). */
  def relaxed(dt: DataType): DataType = dt match {
    case ArrayType(element, _) => ArrayType(relaxed(element), containsNull = true)
    case MapType(key, value, _) => MapType(relaxed(key), relaxed(value), valueContainsNull = true)
    case s: StructType => StructType(s.fields.map(f => f.copy(dataType = relaxed(f.dataType), nullable = true)))
    case other => other
  }

  /** `struct` with every column nullable at every depth: a shard's schema taken from a DataFrame. */
  def relaxedSchema(struct: StructType): StructType =
    StructType(struct.fields.map(f => f.copy(dataType = relaxed(f.dataType), nullable = true)))

  /** Whether some level inside `dt` is NOT NULL (a null there must be refused on write). */
  def hasNotNullInside(dt: DataType): Boolean = relaxed(dt) != dt

  /**
   * `dt` with the level at `path` (names of struct fields, `element` of an array, `value` of a map,
   * each matched as [[NestedFields]] matches them) made nullable; `missing` says what to fail with.
   */
  def relax(dt: DataType, path: Seq[String], context: String, missing: => String): DataType = (dt, path) match {
    case (ArrayType(element, _), Seq("element")) => ArrayType(element, containsNull = true)
    case (ArrayType(element, n), Seq("element", more @ _*)) => ArrayType(relax(element, more, context, missing), n)
    case (MapType(k, value, _), Seq("value")) => MapType(k, value, valueContainsNull = true)
    case (MapType(k, value, n), Seq("value", more @ _*)) => MapType(k, relax(value, more, context, missing), n)
    case (s: StructType, Seq(name, more @ _*)) =>
      val i = Some(s.fieldNames.indexOf(name)).filter(_ >= 0)
        .getOrElse(s.fieldNames.indexWhere(_.equalsIgnoreCase(name)))
      if (i < 0) throw PersistErrors.invalidSchema(context, s"$missing.")
      val f = s.fields(i)
      val changed: StructField =
        if (more.isEmpty) f.copy(nullable = true) else f.copy(dataType = relax(f.dataType, more, context, missing))
      StructType(s.fields.updated(i, changed))
    case _ => throw PersistErrors.invalidSchema(context, s"$missing.")
  }
}
