package sparkpersist.schema

import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

/**
 * Whether a column may become another in a shard's history (same column id) while its parts stay
 * as they are: fields inside its structs are matched by id, or by name for fields without
 * ([[NestedFieldIds.sameField]]), as parts are read; a matched field may be renamed, become
 * nullable and widen its type ([[TypeWidening]]); fields may be dropped, and added if nullable.
 */
object ColumnEvolution {

  def follows(before: ColumnDef, after: ColumnDef): Boolean =
    evolves(before.dataType, before.fieldIds, Nil, after.dataType, after.fieldIds, Nil)

  private def evolves(from: DataType, fromIds: Map[Seq[String], Int], fromPath: Seq[String],
      to: DataType, toIds: Map[Seq[String], Int], toPath: Seq[String]): Boolean = (from, to) match {
    case (f: StructType, t: StructType) =>
      t.fields.forall { field =>
        NestedFieldIds.sameField(f, fromIds, fromPath, field, toIds, toPath) match {
          case Some(old) => (field.nullable || !old.nullable) &&
            evolves(old.dataType, fromIds, fromPath :+ old.name, field.dataType, toIds, toPath :+ field.name)
          case None => field.nullable
        }
      }
    case (ArrayType(f, fromNulls), ArrayType(t, toNulls)) =>
      (toNulls || !fromNulls) && evolves(f, fromIds, fromPath, t, toIds, toPath)
    case (MapType(fk, fv, fromNulls), MapType(tk, tv, toNulls)) =>
      fk == tk && (toNulls || !fromNulls) && evolves(fv, fromIds, fromPath, tv, toIds, toPath)
    case _ => from == to || TypeWidening.widens(from, to)
  }
}
