package sparkpersist.plan

import java.util.Locale

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.functions.{call_function, col}
import org.apache.spark.sql.types.{StructField, StructType}

import sparkpersist.PersistConf
import sparkpersist.interpret.UdfTable

/**
 * Evaluates declared monotone Python functions ahead of a part decision: the driver JVM cannot
 * run Python, so the points a decision needs (recorded by a first pass, [[UdfTable.Recording]])
 * are evaluated by the function's probe in one Spark job per function over a local relation of
 * the distinct points. The probe is the user's function registered by `register_monotone` as
 * [[probeName]]: it returns `struct<ok: boolean, value: T>`, `ok = false` where the function
 * raised. A function asked for more than [[PersistConf.UdfProbePoints]] points, or whose job
 * fails (logged as a warning naming it), is left out of the table: its parts keep.
 */
object UdfProbes extends Logging {

  /** The SQL name of the probe of the Python function `name` (see `register_monotone`). */
  def probeName(name: String): String = "__sparkpersist_probe_" + name.toLowerCase(Locale.ROOT)

  /** The values of the functions at the points `recorded` asks for. */
  def evaluate(spark: SparkSession, recorded: UdfTable.Recording): UdfTable = {
    val limit = PersistConf.UdfProbePoints.get(spark.sessionState.conf)
    val values = recorded.points.flatMap { case (function, points) =>
      if (points.size > limit) {
        logWarning(s"Declared monotone Python function '${function.name}' needs ${points.size} points " +
          s"to decide the parts of a scan, over ${PersistConf.UdfProbePoints.key}=$limit: keeping its parts")
        None
      } else probe(spark, function, points.toIndexedSeq).map(function -> _)
    }
    new UdfTable.Known(values)
  }

  /** The function at `points` (`None` for a point where it raised), or None if the job failed. */
  private def probe(spark: SparkSession, function: UdfTable.Function,
      points: IndexedSeq[IndexedSeq[Any]]): Option[Map[IndexedSeq[Any], Option[Any]]] =
    try {
      val types = function.argTypes
      val schema = StructType(types.indices.map(i => StructField(s"a$i", types(i))))
      val toScala = types.map(CatalystTypeConverters.createToScalaConverter)
      val rows = points.map(p => Row.fromSeq(p.indices.map(i => toScala(i)(p(i)))))
      val probed = spark.createDataFrame(rows.asJava, schema)
        .select(call_function(probeName(function.name), schema.fieldNames.map(col).toIndexedSeq: _*))
      val valueType = probed.schema.head.dataType.asInstanceOf[StructType]("value").dataType
      val toCatalyst = CatalystTypeConverters.createToCatalystConverter(valueType)
      // A projection of a local relation keeps the order of its rows.
      val results = probed.collect().map(_.getStruct(0))
      require(results.length == points.length, s"probe returned ${results.length} of ${points.length} rows")
      Some(points.zip(results).map { case (p, r) =>
        p -> Option.when(r.getBoolean(0))(toCatalyst(r.get(1)))
      }.toMap)
    } catch {
      case NonFatal(e) =>
        logWarning(s"Could not evaluate declared monotone Python function '${function.name}' at range " +
          s"endpoints (its probe ${probeName(function.name)} failed): keeping its parts", e)
        None
    }
}
