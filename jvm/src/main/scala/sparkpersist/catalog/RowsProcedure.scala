package sparkpersist.catalog

import java.util.Collections

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.{BoundProcedure, ProcedureParameter, UnboundProcedure}
import org.apache.spark.sql.connector.read.{LocalScan, Scan}
import org.apache.spark.sql.types.StructType

/**
 * A [[SystemProcedures]] procedure whose call returns rows of one schema, computed on the driver:
 * the binding, determinism and the local scan Spark reads the rows from, once for all of them.
 */
abstract class RowsProcedure(procedureName: String, procedureDescription: String) extends UnboundProcedure
  with BoundProcedure {

  /** The schema and rows of one call with the positional arguments `input`. */
  def result(input: InternalRow): (StructType, Array[InternalRow])

  override def name(): String = procedureName
  override def description(): String = procedureDescription
  override def bind(inputType: StructType): BoundProcedure = this
  override def isDeterministic: Boolean = false
  override def parameters(): Array[ProcedureParameter]

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val (schema, computed) = result(input)
    Collections.singletonList[Scan](new LocalScan {
      override def rows(): Array[InternalRow] = computed
      override def readSchema(): StructType = schema
    }).iterator()
  }
}
