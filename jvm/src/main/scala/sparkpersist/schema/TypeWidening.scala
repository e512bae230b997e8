package sparkpersist.schema

import org.apache.spark.sql.types.{ByteType, DataType, DecimalType, DoubleType, FloatType, IntegerType, LongType, ShortType}

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

  /** What a refused type change says. */
  def refusal: String = s"A shard column's type may only widen without changing any value: $described. " +
    "For another type, create a new shard and copy the data with INSERT INTO ... SELECT CAST(...)."

  /** The changes accepted, for error messages. */
  val described: String = "tinyint/smallint/int to a wider integer type, float to double, and " +
    "decimal(p, s) to decimal(p', s') with s' >= s and p' - s' >= p - s"
}
