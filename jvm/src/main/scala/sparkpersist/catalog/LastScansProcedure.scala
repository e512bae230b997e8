package sparkpersist.catalog

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.scan.{ScanReport, ScanReports}

/**
 * `CALL persist.system.last_scans()`: what each persist scan of the session's latest query read,
 * one row per scan, with the keys of `sparkpersist.last_scans(spark)` as columns. The SQL form,
 * for Spark Connect clients and the Thrift server, which have no py4j.
 */
private[catalog] object LastScansProcedure extends RowsProcedure("last_scans",
    "What each persist scan of the session's latest query read: parts and bytes total and read, pruned, " +
      "proven true, answered from statistics, the decision's time and soft-mode violations.") {
  /** The columns, in the order of [[ScanReport.toMap]]'s keys, and their types. */
  private val columns: Seq[(String, DataType)] = Seq(
    "shard" -> StringType, "as_of" -> LongType, "mode" -> StringType, "parts_total" -> LongType,
    "parts_read" -> LongType, "parts_pruned" -> LongType, "segments_skipped" -> LongType,
    "parts_runtime_pruned" -> LongType, "parts_proven_true" -> LongType, "parts_from_stats" -> LongType,
    "bytes_total" -> LongType, "bytes_read" -> LongType, "pruning_ms" -> DoubleType, "soft_violations" -> LongType,
    "part_keys_read" -> ArrayType(StringType, containsNull = false),
    "part_keys_proven_true" -> ArrayType(StringType, containsNull = false))

  val schema: StructType = StructType(columns.map { case (n, t) => StructField(n, t, nullable = n == "as_of") })

  override def parameters(): Array[ProcedureParameter] = Array.empty

  override def result(input: InternalRow): (StructType, Array[InternalRow]) =
    (schema, ScanReports.last(SparkSession.active).map(row).toArray)

  private def row(report: ScanReport): InternalRow = {
    val values = report.toMap
    InternalRow.fromSeq(columns.map { case (n, t) => value(values(n), t) })
  }

  private def value(v: Any, t: DataType): Any = (v, t) match {
    case (null, _) => null
    case (s: String, _) => UTF8String.fromString(s)
    case (n: Number, LongType) => n.longValue
    case (n: Number, DoubleType) => n.doubleValue
    case (keys: Seq[_], _) => new GenericArrayData(keys.map(k => UTF8String.fromString(k.toString)).toArray[Any])
    case (other, _) => UTF8String.fromString(other.toString)
  }
}
