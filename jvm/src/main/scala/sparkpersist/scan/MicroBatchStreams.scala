package sparkpersist.scan

import java.util.ServiceLoader

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.plan.{ScanRequest, TableView}
import sparkpersist.shard.ShardHandle

/**
 * Streaming reads of a shard's tables (`spark.readStream.table`), built by a package above
 * `scan` (`sparkpersist.stream.ShardStreams`).
 *
 * Why a seam (`java.util.ServiceLoader`, `META-INF/services/sparkpersist.scan.MicroBatchStreams`)
 * and not a registration by the layer above: `stream` sits above `catalog` (its analysis rule
 * matches the catalog's tables), and Spark reaches a stream through the catalog's table, which it
 * instantiates by class name; a session configured with the catalog alone (no
 * `spark.sql.extensions`) loads no class above `catalog` before its first streaming read, so
 * nothing up there could register first. Only the driver looks it up.
 */
trait MicroBatchStreams {
  /** The stream of `view` of `shard` (`schema` its columns), with the filter of `request` and the read `options`. */
  def open(shard: ShardHandle, view: TableView, schema: StructType, request: ScanRequest,
      options: CaseInsensitiveStringMap): MicroBatchStream
}

object MicroBatchStreams {
  private lazy val provider: Option[MicroBatchStreams] =
    ServiceLoader.load(classOf[MicroBatchStreams], getClass.getClassLoader).asScala.headOption

  def open(shard: ShardHandle, view: TableView, schema: StructType, request: ScanRequest,
      options: CaseInsensitiveStringMap): MicroBatchStream =
    provider.getOrElse(throw new UnsupportedOperationException(
      s"Streaming reads of shard '${shard.name}' need sparkpersist's stream package, which is not on the classpath."))
      .open(shard, view, schema, request, options)
}
