package sparkpersist.iceberg

import scala.jdk.CollectionConverters._

import org.apache.iceberg.Schema
import org.apache.iceberg.mapping.{MappingUtil, NameMappingParser}
import org.apache.iceberg.types.{Type, Types}
import org.apache.spark.sql.types._

import sparkpersist.schema.ShardSchema

/**
 * A shard's schema as an Iceberg schema: its user columns only (no `time`, no `diff`), each with its
 * stable column id as Iceberg field id — the id every part carries as its Parquet field id, so a
 * reader matches columns by id across renames and drops as the shard does — and its Iceberg type.
 * Columns of types that have no Iceberg type here (structs, arrays, maps, variants, intervals) make
 * the schema inexpressible: `Left` says which.
 */
object IcebergSchemas {

  def of(schema: ShardSchema): Either[String, Schema] = {
    val fields = schema.columns.map(c => typeOf(c.dataType).map(t => Types.NestedField.optional(c.id, c.name, t)))
    fields.collectFirst { case Left(why) => why }.map(Left(_)).getOrElse {
      // Top-level NOT NULL is not carried over: Iceberg readers then never assume a column has no nulls
      // that a part written before the column was added (read as null) would contradict.
      Right(new Schema(fields.collect { case Right(f) => f }.asJava))
    }.left.map(why => s"the shard's schema has no Iceberg form: $why")
  }

  /** The name mapping readers fall back on for a file without field ids (`schema.name-mapping.default`). */
  def nameMapping(schema: Schema): String = NameMappingParser.toJson(MappingUtil.create(schema))

  /**
   * The ids of the columns whose statistics' bounds are Iceberg bounds: all but strings of a
   * collation, whose bounds are in the collation's order, not in the byte order Iceberg compares in.
   */
  def boundedIds(schema: ShardSchema): Set[Int] = schema.columns.filter(_.dataType match {
    case s: StringType => s.collationId == StringType.collationId
    case _ => true
  }).map(_.id).toSet

  /** The Iceberg type of a column of Spark type `t`. */
  def typeOf(t: DataType): Either[String, Type] = t match {
    case BooleanType => Right(Types.BooleanType.get())
    case ByteType | ShortType | IntegerType => Right(Types.IntegerType.get())
    case LongType => Right(Types.LongType.get())
    case FloatType => Right(Types.FloatType.get())
    case DoubleType => Right(Types.DoubleType.get())
    case d: DecimalType => Right(Types.DecimalType.of(d.precision, d.scale))
    case _: StringType | _: CharType | _: VarcharType => Right(Types.StringType.get())
    case BinaryType => Right(Types.BinaryType.get())
    case DateType => Right(Types.DateType.get())
    case TimestampType => Right(Types.TimestampType.withZone())
    case TimestampNTZType => Right(Types.TimestampType.withoutZone())
    case other => Left(s"type ${other.sql} has none in this release (its columns are of primitive types only)")
  }
}
