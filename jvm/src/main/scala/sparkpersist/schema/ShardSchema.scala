package sparkpersist.schema

import org.apache.spark.sql.types.{DataType, LongType, Metadata, StructField, StructType}

/**
 * One data column of a shard. `id` is stable for the life of the shard: Parquet parts name
 * their fields by it (field ids), so a column keeps its id across renames.
 */
final case class ColumnDef(
    id: Int,
    name: String,
    dataType: DataType,
    nullable: Boolean,
    metadata: Metadata = Metadata.empty) {
  def toField: StructField = StructField(name, dataType, nullable, metadata)
}

/**
 * The logical schema of a shard: its data columns (with stable ids) and the order key that
 * rows within a part are sorted by (then by time).
 */
final case class ShardSchema(columns: IndexedSeq[ColumnDef], orderBy: Seq[String]) {
  require(columns.map(_.id).distinct.size == columns.size, "column ids must be unique")

  /** The data columns, as the snapshot read shows them. */
  def dataSchema: StructType = StructType(columns.map(_.toField))

  /** The data columns followed by the reserved `time` and `diff` columns. */
  def updatesSchema: StructType =
    StructType(columns.map(_.toField) ++ ReservedColumns.fields)

  def column(name: String): Option[ColumnDef] =
    columns.find(_.name.equalsIgnoreCase(name))

  def columnById(id: Int): Option[ColumnDef] = columns.find(_.id == id)
}

object ShardSchema {
  /** Assigns ids 1..n to the fields of a Spark schema. */
  def fromStruct(struct: StructType, orderBy: Seq[String] = Nil): ShardSchema = {
    struct.fields.foreach(f => ReservedColumns.requireNotReserved(f.name))
    orderBy.foreach { c =>
      require(struct.fieldNames.exists(_.equalsIgnoreCase(c)),
        s"order_by column '$c' is not a column of the shard (columns: ${struct.fieldNames.mkString(", ")})")
    }
    ShardSchema(
      struct.fields.toIndexedSeq.zipWithIndex.map { case (f, i) =>
        ColumnDef(i + 1, f.name, f.dataType, f.nullable, f.metadata)
      },
      orderBy)
  }
}

/** The two columns every update carries besides its data. */
object ReservedColumns {
  /** Logical time of the update, epoch milliseconds. */
  val Time = "time"
  /** Signed multiplicity: +1 insert, -1 retraction. */
  val Diff = "diff"
  /**
   * Parquet field ids of the reserved columns. Data columns count up from 1; these sit at the
   * top of the id space, as Iceberg's reserved columns do (Arrow reads -1 as "no field id").
   */
  val TimeFieldId: Int = Int.MaxValue - 1
  val DiffFieldId: Int = Int.MaxValue - 2

  val fields: Seq[StructField] =
    Seq(StructField(Time, LongType, nullable = false), StructField(Diff, LongType, nullable = false))

  def requireNotReserved(name: String): Unit =
    if (name.equalsIgnoreCase(Time) || name.equalsIgnoreCase(Diff)) {
      throw new IllegalArgumentException(
        s"Column '$name' is reserved by sparkpersist for each update's $name. Rename the column, " +
          s"or pass it as the writer's ${name}_col to use it as the update $name.")
    }
}
