package sparkpersist.write

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.sparkpersist.WriteErrors
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

import sparkpersist.schema.{NestedNullability, ShardSchema}

/**
 * The last check before a row reaches a part: no null at a level inside a column that the shard
 * declares NOT NULL ([[NestedNullability]]: a struct field declared `NOT NULL` in DDL, at any
 * depth). Every writer checks this before, with Spark's resolution of table writes; this one runs
 * in every write task whatever the path (a stream's rows, for one, reach the shard unresolved),
 * and fails with the same error, `NOT_NULL_ASSERT_VIOLATION`, naming the place. Built only for
 * shards that declare such a level ([[NotNullInside.of]]); it reads only the values on the way to
 * those levels.
 */
final class NotNullInside private (checks: IndexedSeq[(Int, NotNullInside.Check)]) {
  def check(row: InternalRow): Unit = {
    var i = 0
    while (i < checks.length) {
      val (ordinal, check) = checks(i)
      if (!row.isNullAt(ordinal)) check(row, ordinal)
      i += 1
    }
  }
}

object NotNullInside {
  /** Checks the non-null value at an ordinal of a row, array or struct. */
  private type Check = (SpecializedGetters, Int) => Unit

  /** The check of `schema`'s columns (rows in the part layout: data columns first), if any declares a level NOT NULL. */
  def of(schema: ShardSchema): Option[NotNullInside] = {
    val checks = schema.columns.zipWithIndex.flatMap { case (c, i) => inside(c.dataType, Seq(c.name)).map(i -> _) }
    if (checks.isEmpty) None else Some(new NotNullInside(checks))
  }

  private def inside(dt: DataType, path: Seq[String]): Option[Check] =
    if (!NestedNullability.hasNotNullInside(dt)) None
    else dt match {
      case ArrayType(element, containsNull) =>
        val elements = slot(element, containsNull, path :+ "element")
        Some((g, o) => {
          val a = g.getArray(o)
          var j = 0
          while (j < a.numElements()) { elements(a, j); j += 1 }
        })
      case MapType(key, value, valueContainsNull) =>
        val keys = slot(key, nullable = false, path :+ "key")
        val values = slot(value, valueContainsNull, path :+ "value")
        Some((g, o) => {
          val m = g.getMap(o)
          var j = 0
          while (j < m.numElements()) { keys(m.keyArray(), j); values(m.valueArray(), j); j += 1 }
        })
      case s: StructType =>
        val fields = s.fields.zipWithIndex.map { case (f, j) => j -> slot(f.dataType, f.nullable, path :+ f.name) }
        Some((g, o) => {
          val r = g.getStruct(o, s.length)
          fields.foreach { case (j, field) => field(r, j) }
        })
      case _ => None
    }

  /** The check of one slot (a field, element, key or value): null only if `nullable`, and inside it. */
  private def slot(dt: DataType, nullable: Boolean, path: Seq[String]): Check = {
    val within = inside(dt, path)
    (g, o) =>
      if (g.isNullAt(o)) { if (!nullable) throw WriteErrors.nullInNotNull(path) }
      else within.foreach(_(g, o))
  }
}
