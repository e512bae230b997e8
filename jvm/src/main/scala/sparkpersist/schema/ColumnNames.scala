package sparkpersist.schema

import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

import sparkpersist.errors.PersistError

/**
 * The one naming rule of shards: no two names at the same level — two top-level columns, or two
 * fields of one struct, at any depth (inside arrays and maps too) — may be equal ignoring case.
 *
 * A shard is read by sessions of either `spark.sql.caseSensitive` setting and by SQL clients that
 * fold case, so names that differ only in case would make a column's meaning depend on the
 * reader (Delta refuses such schemas for the same reason). The writer, the catalog and
 * `CREATE TABLE` check every schema with [[requireDistinct]] before anything is written.
 */
object ColumnNames {

  /** Two names at one level that are equal ignoring case; `path` is where they stand. */
  final case class Clash(path: Seq[String], first: String, second: String) {
    def describe: String = {
      val where = if (path.isEmpty) "top-level columns" else s"fields of struct ${path.mkString(".")}"
      s"$where '$first' and '$second' are equal ignoring case"
    }
  }

  /** Every clash in `schema`, outermost first. */
  def clashes(schema: StructType): Seq[Clash] = structClashes(schema, Nil)

  /**
   * Fails with an `IllegalArgumentException` naming every clash in `schema` and how to rename,
   * prefixed by `context` (for example "Cannot write to shard 'events'").
   */
  def requireDistinct(schema: StructType, context: String): Unit = {
    val found = clashes(schema)
    if (found.nonEmpty) {
      throw PersistError("PERSIST_INVALID_NAME.COLUMN_CASE", "context" -> context,
        "names" -> found.map(_.describe).mkString("; ")).invalidInput()
    }
  }

  private def structClashes(struct: StructType, path: Seq[String]): Seq[Clash] = {
    val names = struct.fieldNames.toSeq
    // Spark's case-insensitive resolver compares names with equalsIgnoreCase: so does the rule.
    val here = for {
      (name, i) <- names.zipWithIndex
      first = names.indexWhere(_.equalsIgnoreCase(name))
      if first < i
    } yield Clash(path, names(first), name)
    here ++ struct.fields.toSeq.flatMap(f => typeClashes(f.dataType, path :+ f.name))
  }

  private def typeClashes(dt: DataType, path: Seq[String]): Seq[Clash] = dt match {
    case s: StructType => structClashes(s, path)
    case ArrayType(element, _) => typeClashes(element, path :+ "element")
    case MapType(key, value, _) => typeClashes(key, path :+ "key") ++ typeClashes(value, path :+ "value")
    case _ => Nil
  }
}
