package sparkpersist.write

import java.util.ServiceLoader

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.write.LogicalWriteInfo
import org.apache.spark.sql.connector.write.streaming.StreamingWrite

import sparkpersist.shard.{ShardHandle, ShardState}

/**
 * Streaming writes to a shard (`writeStream.toTable`), built by a package above `write`
 * (`sparkpersist.stream`) and found with `java.util.ServiceLoader`
 * (`META-INF/services/sparkpersist.write.StreamingWrites`), so that writing does not depend on it.
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
