package sparkpersist.schema

import org.apache.spark.sql.types.{DataType, StructType}

import sparkpersist.errors.PersistErrors

/**
 * Changes to a struct inside a column's type, found by a path of field names (each its exact name,
 * else the one equal ignoring case: names are distinct ignoring case, [[ColumnNames]]). Each
 * returns the path as the column names it (for [[NestedFieldIds]]) and the changed type; a path
 * that names no such struct or field fails with `context: missing.`
 */
private[schema] object NestedFields {

  /** `dataType` with the struct at `path` (empty: `dataType` itself) replaced by `change` of it. */
  def changeStruct(dataType: DataType, path: Seq[String], context: String, missing: => String)(
      change: StructType => StructType): (Seq[String], DataType) = (dataType, path) match {
    case (s: StructType, Seq()) => (Nil, change(s))
    case (s: StructType, Seq(name, more @ _*)) =>
      val i = indexOf(s, name).getOrElse(fail(context, missing))
      val f = s.fields(i)
      val (inner, changed) = changeStruct(f.dataType, more, context, missing)(change)
      (f.name +: inner, StructType(s.fields.updated(i, f.copy(dataType = changed))))
    case _ => fail(context, missing)
  }

  /**
   * `dataType` with the struct holding the field at `path` (non-empty) replaced by `change` of it
   * and the field's index there.
   */
  def changeField(dataType: DataType, path: Seq[String], context: String, missing: => String)(
      change: (StructType, Int) => StructType): (Seq[String], DataType) = {
    var name = path.last
    val (structPath, changed) = changeStruct(dataType, path.init, context, missing) { s =>
      val i = indexOf(s, path.last).getOrElse(fail(context, missing))
      name = s.fields(i).name
      change(s, i)
    }
    (structPath :+ name, changed)
  }

  private def indexOf(s: StructType, name: String): Option[Int] =
    Some(s.fieldNames.indexOf(name)).filter(_ >= 0)
      .orElse(Some(s.fieldNames.indexWhere(_.equalsIgnoreCase(name))).filter(_ >= 0))

  private def fail(context: String, missing: String): Nothing =
    throw PersistErrors.invalidSchema(context, s"$missing.")
}
