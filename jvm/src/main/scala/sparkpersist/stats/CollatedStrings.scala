package sparkpersist.stats

import java.util.Comparator

import org.apache.spark.sql.catalyst.util.CollationFactory
import org.apache.spark.sql.types.{ArrayType, CharType, DataType, MapType, StringType, StructType, VarcharType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Strings of a collation other than UTF8_BINARY, whose statistics follow the collation:
 * UTF8_LCASE, the ICU collations (`UNICODE`, `UNICODE_CI`, `de_CI_AI`, ...) and the space-trimming
 * variants of all of them (`UTF8_BINARY_RTRIM`, `UNICODE_CI_RTRIM`, ...). Their bounds are the least and greatest values under the collation's comparator, the
 * one Spark's `=`, `<` and `IN` on such strings evaluate with, kept whole (a prefix of a string is
 * not an ICU bound of it); their membership filters hash the collation's sort key, which two
 * strings share exactly when the collation finds them equal (Spark groups and joins collated
 * strings by that key).
 *
 * Sort keys and orders change with the collation's version (the ICU release): stats record it in
 * the column's type tag ([[typeTag]]), so stats written under another version keep only their
 * null counts. (Spark's sort key of a space-trimming collation trims as its comparator does, so
 * `'ab'` and `'ab  '` share one under RTRIM.)
 */
object CollatedStrings {

  /** Whether `dt` is a string of a collation other than UTF8_BINARY (stats follow the collation). */
  def supports(dt: DataType): Boolean = dt match {
    case s: StringType => s.collationId != StringType.collationId && s.collationId >= 0
    case _ => false
  }

  /** The comparator of a [[supports supported]] string type. */
  def comparator(dt: StringType): Comparator[UTF8String] =
    CollationFactory.fetchCollation(dt.collationId).comparator

  /** The sort key of `s`: equal for strings the collation finds equal, only for those. */
  def sortKey(s: UTF8String, collationId: Int): Array[Byte] =
    CollationFactory.fetchCollation(collationId).sortKeyFunction.apply(s)

  /**
   * The type stats record for a column of type `dt`: its `catalogString`, followed by the
   * version of each collation it holds, when it holds collated strings whose stats follow the
   * collation (anywhere inside it). A string named UTF8_BINARY is written `string` on every Spark
   * line (4.3 writes `string collate UTF8_BINARY` for an explicit one), so the same column keeps
   * the same tag whichever line wrote its stats.
   */
  def typeTag(dt: DataType): String = {
    val versions = collated(dt).distinct.sorted.map(id => s"$id:${CollationFactory.fetchCollation(id).version}")
    val name = binaryAsDefault(dt).catalogString
    if (versions.isEmpty) name else name + versions.mkString(" @", ",", "")
  }

  /** `dt` with every UTF8_BINARY string type the default `StringType` (CHAR and VARCHAR, which
    * are string types too, keep their own names). */
  private def binaryAsDefault(dt: DataType): DataType = dt match {
    case _: CharType | _: VarcharType => dt
    case s: StringType if s.collationId == StringType.collationId => StringType
    case s: StructType => StructType(s.fields.map(f => f.copy(dataType = binaryAsDefault(f.dataType))))
    case a: ArrayType => a.copy(elementType = binaryAsDefault(a.elementType))
    case m: MapType => m.copy(keyType = binaryAsDefault(m.keyType), valueType = binaryAsDefault(m.valueType))
    case other => other
  }

  private def collated(dt: DataType): Seq[Int] = dt match {
    case s: StringType if supports(s) => Seq(s.collationId)
    case s: StructType => s.fields.toSeq.flatMap(f => collated(f.dataType))
    case a: ArrayType => collated(a.elementType)
    case m: MapType => collated(m.keyType) ++ collated(m.valueType)
    case _ => Nil
  }
}
