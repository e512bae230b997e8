package sparkpersist.schema

import org.apache.spark.sql.types.{ArrayType, DataType, MapType, MetadataBuilder, StructField, StructType}

/**
 * Stable ids of the fields inside a column's structs, at any depth ([[ColumnDef.fieldIds]]): a
 * field is named by its path of names from the column, through array elements and map values
 * (an array of structs names its element's fields as a struct column would). Map keys are left
 * out: their fields stay matched by name.
 *
 * Ids come from the shard's one id space ([[ShardSchema.nextColumnId]]) when a column or field is
 * added, and are never given again; parts carry them as Parquet field ids, so a renamed field keeps
 * its data and a field dropped and added again under its name never shows the old data. A field
 * of a shard created before nested ids has none, and is matched by name as it always was.
 */
object NestedFieldIds {
  type Path = Seq[String]

  /** The path of every struct field inside `dataType`, each before the fields inside it. */
  def paths(dataType: DataType, prefix: Path = Nil): Seq[Path] = dataType match {
    case s: StructType => s.fields.toSeq.flatMap(f => (prefix :+ f.name) +: paths(f.dataType, prefix :+ f.name))
    case a: ArrayType => paths(a.elementType, prefix)
    case m: MapType => paths(m.valueType, prefix)
    case _ => Nil
  }

  /** Ids `next`, `next + 1`, ... for every struct field inside `dataType`, whose path starts with `prefix`. */
  def assign(dataType: DataType, prefix: Path, next: Int): Map[Path, Int] =
    paths(dataType, prefix).zipWithIndex.map { case (p, i) => p -> (next + i) }.toMap

  /**
   * `dataType` (a type read or written at `prefix`, possibly with fewer fields than the column's)
   * with each struct field whose path has an id in `ids` carrying it as metadata under `key`.
   */
  def annotate(dataType: DataType, ids: Map[Path, Int], key: String, prefix: Path = Nil): DataType =
    if (ids.isEmpty) dataType
    else dataType match {
      case s: StructType => StructType(s.fields.map { f =>
        val path = prefix :+ f.name
        val inner = f.copy(dataType = annotate(f.dataType, ids, key, path))
        ids.get(path).fold(inner)(id => withId(inner, key, id))
      })
      case a: ArrayType => a.copy(elementType = annotate(a.elementType, ids, key, prefix))
      case m: MapType => m.copy(valueType = annotate(m.valueType, ids, key, prefix))
      case other => other
    }

  /** `field` carrying `id` as metadata under `key`. */
  def withId(field: StructField, key: String, id: Long): StructField =
    field.copy(metadata = new MetadataBuilder().withMetadata(field.metadata).putLong(key, id).build())

  /** `ids` once the field at `path` is renamed to `newName` (the fields inside it move along). */
  def renamed(ids: Map[Path, Int], path: Path, newName: String): Map[Path, Int] = ids.map { case (p, id) =>
    (if (p.startsWith(path)) (path.init :+ newName) ++ p.drop(path.size) else p) -> id
  }

  /** `ids` without the field at `path` and the fields inside it. */
  def without(ids: Map[Path, Int], path: Path): Map[Path, Int] = ids.filterNot(_._1.startsWith(path))

  /**
   * The field of struct `from` (at `fromPrefix`, ids `fromIds`) that field `to` of a later type
   * (at `toPrefix`, ids `toIds`) is: the one with its id, or, for a field without id, the one of
   * its name without id either. None: `to` was added since.
   */
  def sameField(from: StructType, fromIds: Map[Path, Int], fromPrefix: Path,
      to: StructField, toIds: Map[Path, Int], toPrefix: Path): Option[StructField] =
    toIds.get(toPrefix :+ to.name) match {
      case Some(id) => from.fields.find(f => fromIds.get(fromPrefix :+ f.name).contains(id))
      case None => from.fields.find(f => f.name == to.name && !fromIds.contains(fromPrefix :+ f.name))
    }
}
