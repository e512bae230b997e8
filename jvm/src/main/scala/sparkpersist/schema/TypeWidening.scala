package sparkpersist.schema

import org.apache.spark.sql.types.{ByteType, DataType, DecimalType, DoubleType, FloatType, IntegerType, LongType, ShortType, StructType}

/**
 * The type changes a shard column accepts without rewriting its parts: those that Spark's Parquet
 * reader widens on read and that keep every old value exactly (so old parts' statistics map
 * exactly too, [[sparkpersist.stats.StatsEvolution]]):
 *
 *  - tinyint to smallint, int or bigint; smallint to int or bigint; int to bigint;
 *  - float to double;
 *  - decimal(p, s) to decimal(p', s') with s' >= s and p' - s' >= p - s (no fewer digits on
 *    either side of the point).
 *
 * Anything else (int to double, bigint to decimal, string to anything, ...) is refused: create a
 * new shard and copy the data.
 */
object TypeWidening {

  def widens(from: DataType, to: DataType): Boolean = (from, to) match {
    case (ByteType, ShortType | IntegerType | LongType) => true
    case (ShortType, IntegerType | LongType) => true
    case (IntegerType, LongType) => true
    case (FloatType, DoubleType) => true
    case (f: DecimalType, t: DecimalType) =>
      f != t && t.scale >= f.scale && t.precision - t.scale >= f.precision - f.scale
    case _ => false
  }

  /**
   * Whether `to` is the struct `from` with fields added (nullable, after the others), here or in
   * structs nested in it: parts match struct fields by name, so one written before reads the added
   * fields as null.
   */
  def addsFields(from: DataType, to: DataType): Boolean = (from, to) match {
    case (f: StructType, t: StructType) =>
      f != t && f.length <= t.length && t.fields.drop(f.length).forall(_.nullable) &&
        f.fields.zip(t.fields).forall { case (a, b) =>
          a.name == b.name && a.nullable == b.nullable && a.metadata == b.metadata &&
            (a.dataType == b.dataType || addsFields(a.dataType, b.dataType))
        }
    case _ => false
  }

  /** The changes accepted, for error messages. */
  val described: String = "tinyint/smallint/int to a wider integer type, float to double, and " +
    "decimal(p, s) to decimal(p', s') with s' >= s and p' - s' >= p - s"
}
