package sparkpersist.write

import java.util.ServiceLoader

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.write.LogicalWriteInfo
import org.apache.spark.sql.connector.write.streaming.StreamingWrite

import sparkpersist.shard.{ShardHandle, ShardState}

/**
 * Streaming writes to a shard (`writeStream.toTable`), built by a package above `write`
 * (`sparkpersist.stream.ShardStreams`).
 *
 * Why a seam (`java.util.ServiceLoader`, `META-INF/services/sparkpersist.write.StreamingWrites`) and
 * not a registration by the layer above: `stream` sits above `catalog` (its analysis rule matches the
 * catalog's tables), and Spark reaches a streaming write through the catalog's table, which it
 * instantiates by class name; a session configured with the catalog alone (no
 * `spark.sql.extensions`) loads no class above `catalog` before its first streaming write, so
 * nothing up there could register first. The driver looks it up; executors get the write's
 * serialized writer factory, never this.
 */
trait StreamingWrites {
  /** The streaming write of `info`'s rows to `shard` as of `state`; `updates`: the rows carry time and diff. */
  def open(shard: ShardHandle, state: ShardState, info: LogicalWriteInfo, updates: Boolean): StreamingWrite
}

object StreamingWrites {
  private lazy val provider: Option[StreamingWrites] =
    ServiceLoader.load(classOf[StreamingWrites], getClass.getClassLoader).asScala.headOption

  def open(shard: ShardHandle, state: ShardState, info: LogicalWriteInfo, updates: Boolean): StreamingWrite =
    provider.getOrElse(throw new UnsupportedOperationException(
      s"Streaming writes to shard '${shard.name}' need sparkpersist's stream package, which is not on the classpath."))
      .open(shard, state, info, updates)
}
