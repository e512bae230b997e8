package sparkpersist.schema

import org.apache.spark.sql.catalyst.util.CharVarcharUtils
import org.apache.spark.sql.types.{DataType, LongType, Metadata, StructField, StructType}

import sparkpersist.errors.{PersistError, PersistErrors}

/**
 * One data column of a shard. `id` is stable for the life of the shard: Parquet parts name
 * their fields by it (field ids), so a column keeps its id across renames.
 *
 * `dataType` is the type parts store. A CHAR(n)/VARCHAR(n) column is stored as STRING with its
 * declared type in the metadata, exactly as Spark's own tables keep it
 * ([[CharVarcharUtils.replaceCharVarcharWithStringInSchema]]): Spark then checks lengths on write
 * and pads CHAR on read; [[declaredType]] gives the type back.
 *
 * `fieldIds` holds the stable ids of the fields inside the column's structs ([[NestedFieldIds]]),
 * by path from the column; empty for a column without structs, or one created before nested ids.
 *
 * `indexed` says the table property `sparkpersist.indexColumns` names the column: every writer
 * gives its parts membership filters. Kept on the column, it follows renames and goes with a drop.
 *
 * `clustered` says the table's clustering columns (`CLUSTER BY`, the table property
 * `sparkpersist.clusterBy`) include the column: compaction lays each time window's rows out along
 * a space-filling curve of those columns. Kept on the column like `indexed`.
 */
final case class ColumnDef(
    id: Int,
    name: String,
    dataType: DataType,
    nullable: Boolean,
    metadata: Metadata = Metadata.empty,
    fieldIds: Map[Seq[String], Int] = Map.empty,
    indexed: Boolean = false,
    clustered: Boolean = false) {
  require(fieldIds.isEmpty || fieldIds.keySet.subsetOf(NestedFieldIds.paths(dataType).toSet),
    s"field ids of column '$name' name fields it does not have")

  def toField: StructField = StructField(name, dataType, nullable, metadata)

  /** This column's id and the ids of the fields inside it ([[NestedFieldIds]]). */
  def allIds: Iterator[Int] = Iterator.single(id) ++ fieldIds.valuesIterator

  /** The type as declared: CHAR(n)/VARCHAR(n) for such columns, else [[dataType]]. */
  def declaredType: DataType = CharVarcharUtils.getRawType(metadata).getOrElse(dataType)
}

/**
 * The logical schema of a shard: its data columns (with stable ids) and the order key that
 * rows within a part are sorted by (then by time). `maxColumnId` is the highest id the shard ever
 * gave a column or a field inside one, dropped ones included ([[SchemaEvolution]]): a new column
 * never reuses an id, so it never shows the data of a dropped one. `clusterAuto` says the table
 * is clustered by the columns its queries' filters constrain (`sparkpersist.clusterBy = 'auto'`),
 * chosen at each compaction; no column is then flagged `clustered`. `properties` holds the table
 * properties that are not about columns (the isolation level of its statements, say), by name.
 */
final case class ShardSchema(columns: IndexedSeq[ColumnDef], orderBy: Seq[String], maxColumnId: Int = 0,
    clusterAuto: Boolean = false, properties: Map[String, String] = Map.empty) {
  require({ val ids = columns.flatMap(_.allIds); ids.distinct.size == ids.size },
    "column and field ids must be unique")

  /** The id the next added column gets: above every id the shard ever gave. */
  def nextColumnId: Int = math.max(maxColumnId, highestId) + 1

  /** Whether `maxColumnId` says more than the ids of the columns do (the highest id was dropped). */
  def recordsDroppedId: Boolean = maxColumnId > highestId

  /** This schema with `maxColumnId` kept only when it says more than the columns: as the state stores it. */
  def normalized: ShardSchema = if (recordsDroppedId || maxColumnId == 0) this else copy(maxColumnId = 0)

  private def highestId: Int = columns.iterator.flatMap(_.allIds).maxOption.getOrElse(0)

  /** Whether a field inside a struct column has an id ([[NestedFieldIds]]): states holding them have a newer format. */
  def hasFieldIds: Boolean = columns.exists(_.fieldIds.nonEmpty)

  /** The ids of the columns the table property `sparkpersist.indexColumns` names (see [[ColumnDef]]). */
  def indexedIds: Set[Int] = columns.filter(_.indexed).map(_.id).toSet

  /** The ids of the clustering columns (see [[ColumnDef]]), in column order. */
  def clusteredIds: IndexedSeq[Int] = columns.filter(_.clustered).map(_.id)

  /** Whether compaction clusters the shard: by named columns, or by those the workload chooses. */
  def clusters: Boolean = clusterAuto || columns.exists(_.clustered)

  /** The data columns as parts store them (CHAR/VARCHAR as STRING with their declared type in the metadata). */
  def dataSchema: StructType = StructType(columns.map(_.toField))

  /** The data columns with their declared types (CHAR/VARCHAR as such), as tables show them. */
  def declaredSchema: StructType = CharVarcharUtils.getRawSchema(dataSchema)

  /** The data columns followed by the reserved `time` and `diff` columns. */
  def updatesSchema: StructType =
    StructType(columns.map(_.toField) ++ ReservedColumns.fields)

  /**
   * The column named `name`: its exact name first, then ignoring case (names are distinct ignoring
   * case, [[ColumnNames]], so the second finds at most one column in any shard created under it).
   */
  def column(name: String): Option[ColumnDef] =
    columns.find(_.name == name).orElse(columns.find(_.name.equalsIgnoreCase(name)))

  def columnById(id: Int): Option[ColumnDef] = columns.find(_.id == id)
}

object ShardSchema {
  /**
   * The schema of a new shard: ids 1..n for the fields of a Spark schema, then ids for the fields
   * inside their structs ([[NestedFieldIds]]), CHAR/VARCHAR stored as
   * Spark stores them. Fails with an `IllegalArgumentException` that says what to change when a
   * name is reserved or clashes with another ignoring case ([[ColumnNames]]), when a type cannot
   * be stored ([[StorableTypes]]), or when an order_by column does not exist. `context` starts
   * those messages (for example "Cannot create shard 'events'").
   */
  def fromStruct(struct: StructType, orderBy: Seq[String] = Nil,
      context: String = "Cannot create a shard with this schema"): ShardSchema = {
    struct.fields.foreach(f => ReservedColumns.requireNotReserved(f.name))
    ColumnNames.requireDistinct(struct, context)
    StorableTypes.requireStorable(struct, context)
    orderBy.foreach { c =>
      if (!struct.fieldNames.exists(_.equalsIgnoreCase(c))) {
        throw PersistErrors.invalidSchema(context,
          s"order_by column '$c' is not a column of the shard (columns: ${struct.fieldNames.mkString(", ")})")
      }
    }
    val stored = CharVarcharUtils.replaceCharVarcharWithStringInSchema(struct)
    var next = stored.length + 1
    ShardSchema(
      stored.fields.toIndexedSeq.zipWithIndex.map { case (f, i) =>
        val fieldIds = NestedFieldIds.assign(f.dataType, Nil, next)
        next += fieldIds.size
        ColumnDef(i + 1, f.name, f.dataType, f.nullable, f.metadata, fieldIds)
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
      throw PersistError("PERSIST_INVALID_NAME.RESERVED_COLUMN", "name" -> name).invalidInput()
    }
}
