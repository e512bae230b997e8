package sparkpersist.schema

import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.types.{ArrayType, CalendarIntervalType, DataType, MapType, StructField, StructType, TimeType, UserDefinedType}

import sparkpersist.errors.PersistErrors

/**
 * The types a shard can hold: those Spark's Parquet writer stores
 * ([[ParquetFileFormat.supportDataType]]), since parts are Parquet files, and that every session
 * reads back. Refused besides: a struct without fields (Parquet has no empty group), and TIME (a
 * preview type in Spark 4.1: sessions without `spark.sql.timeType.enabled` refuse it, so they could
 * not read the shard), and a struct field with an empty name holding a collated string inside an
 * array or map (Spark's schema JSON loses that collation). Anything else is refused when the shard is created, naming the column and
 * the type, before a part is written — rather than failing inside a write task, or later on read.
 */
object StorableTypes {
  private val parquet = new ParquetFileFormat()

  /** A type that cannot be stored, at `path` (a column, then field names, `element`, `key` or `value`). */
  final case class Unstorable(path: Seq[String], dataType: DataType, why: Option[String] = None) {
    def describe: String = {
      val what = if (path.size == 1) s"column '${path.head}'" else s"'${path.mkString(".")}' (in column '${path.head}')"
      s"$what has type ${dataType.sql}, ${why.getOrElse(reason(dataType))}"
    }
  }

  /** Every unstorable type of `schema`, the innermost one of each column. */
  def unstorable(schema: StructType): Seq[Unstorable] =
    schema.fields.toSeq.flatMap(f => innermost(f.dataType, Seq(f.name)))

  /** Fails with an `IllegalArgumentException`, prefixed by `context`, if any column cannot be stored. */
  def requireStorable(schema: StructType, context: String): Unit = {
    val found = unstorable(schema)
    if (found.nonEmpty) throw PersistErrors.invalidSchema(context, s"${found.map(_.describe).mkString(" ")}")
  }

  private def innermost(dt: DataType, path: Seq[String]): Seq[Unstorable] = {
    val inside = dt match {
      case s: StructType => s.fields.toSeq.flatMap { f =>
        if (f.name.isEmpty && !keptBySchemaJson(f)) Seq(Unstorable(path :+ f.name, f.dataType, Some(UnnamedCollation)))
        else innermost(f.dataType, path :+ f.name)
      }
      case ArrayType(element, _) => innermost(element, path :+ "element")
      case MapType(key, value, _) => innermost(key, path :+ "key") ++ innermost(value, path :+ "value")
      case u: UserDefinedType[_] => innermost(u.sqlType, path)
      case _ => Nil
    }
    if (inside.nonEmpty) inside
    else if (storable(dt)) Nil
    else Seq(Unstorable(path, dt))
  }

  /**
   * Whether Spark's schema JSON, which the shard's state and every part's footer keep, gives
   * `field` back exactly. It does not for a field with an empty name holding a collated string
   * inside an array or map: the collation, kept in the field's metadata under a path that starts
   * with the name, is dropped when read back (found by the round-trip soak).
   */
  private def keptBySchemaJson(field: StructField): Boolean = {
    val struct = StructType(Seq(field))
    DataType.fromJson(struct.json) == struct
  }

  private val UnnamedCollation = "which Spark's schema JSON does not keep for a struct field with an empty name: its " +
    "collation would be lost. Give the field a name."

  /** Whether `dt` itself is storable, given that what it holds is. */
  private def storable(dt: DataType): Boolean = dt match {
    case _: TimeType => false
    case s: StructType if s.isEmpty => false
    case _ => parquet.supportDataType(dt)
  }

  private def reason(dt: DataType): String = dt match {
    case CalendarIntervalType => "which Parquet parts cannot store. " +
      "Use INTERVAL DAY TO SECOND or INTERVAL YEAR TO MONTH (ANSI intervals), or cast it to STRING."
    case _: TimeType => "which shards do not hold: TIME is a preview type in Spark 4.1, and sessions without " +
      "spark.sql.timeType.enabled could not read it back. Cast it to STRING before writing."
    case s: StructType if s.isEmpty => "which Parquet parts cannot store (Parquet has no empty group). " +
      "Drop it, or give the struct a field, before writing."
    case _ => "which Parquet parts cannot store. Cast it to a type Parquet stores (for example STRING) before writing."
  }
}
