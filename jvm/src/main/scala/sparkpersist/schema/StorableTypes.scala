package sparkpersist.schema

import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.types.{ArrayType, CalendarIntervalType, DataType, MapType, StructType, UserDefinedType}

/**
 * The types a shard can hold: exactly those Spark's Parquet writer stores
 * ([[ParquetFileFormat.supportDataType]]), since parts are Parquet files. Anything else is refused
 * when the shard is created, naming the column and the type, before a part is written — rather
 * than failing inside a write task.
 */
object StorableTypes {
  private val parquet = new ParquetFileFormat()

  /** A type that cannot be stored, at `path` (a column, then field names, `element`, `key` or `value`). */
  final case class Unstorable(path: Seq[String], dataType: DataType) {
    def describe: String = {
      val what = if (path.size == 1) s"column '${path.head}'" else s"'${path.mkString(".")}' (in column '${path.head}')"
      s"$what has type ${dataType.sql}, which Parquet parts cannot store. ${advice(dataType)}"
    }
  }

  /** Every unstorable type of `schema`, the innermost one of each column. */
  def unstorable(schema: StructType): Seq[Unstorable] =
    schema.fields.toSeq.flatMap(f => innermost(f.dataType, Seq(f.name)))

  /** Fails with an `IllegalArgumentException`, prefixed by `context`, if any column cannot be stored. */
  def requireStorable(schema: StructType, context: String): Unit = {
    val found = unstorable(schema)
    if (found.nonEmpty) throw new IllegalArgumentException(s"$context: ${found.map(_.describe).mkString(" ")}")
  }

  private def innermost(dt: DataType, path: Seq[String]): Seq[Unstorable] =
    if (parquet.supportDataType(dt)) Nil
    else {
      val inside = dt match {
        case s: StructType => s.fields.toSeq.flatMap(f => innermost(f.dataType, path :+ f.name))
        case ArrayType(element, _) => innermost(element, path :+ "element")
        case MapType(key, value, _) => innermost(key, path :+ "key") ++ innermost(value, path :+ "value")
        case u: UserDefinedType[_] => innermost(u.sqlType, path)
        case _ => Nil
      }
      if (inside.nonEmpty) inside else Seq(Unstorable(path, dt))
    }

  private def advice(dt: DataType): String = dt match {
    case CalendarIntervalType =>
      "Use INTERVAL DAY TO SECOND or INTERVAL YEAR TO MONTH (ANSI intervals), or cast it to STRING."
    case _ => "Cast it to a type Parquet stores (for example STRING) before writing."
  }
}
