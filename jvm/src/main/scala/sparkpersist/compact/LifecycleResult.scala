package sparkpersist.compact

import org.apache.spark.sql.types.{DataType, StructField, StructType}

/** One named, typed value of a lifecycle result (`null` when absent). */
final case class ResultField(name: String, dataType: DataType, value: Any)

/**
 * A compaction's or garbage collection's summary as named, typed values: one row of the SQL
 * procedure's output, one dict in Python, in this order.
 */
trait LifecycleResult {
  def fields: Seq[ResultField]

  def schema: StructType = StructType(fields.map(f => StructField(f.name, f.dataType)))

  def toMap: Map[String, Any] = fields.map(f => f.name -> f.value).toMap
}
