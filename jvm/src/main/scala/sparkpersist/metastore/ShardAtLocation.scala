package sparkpersist.metastore

import java.net.URI

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{ShardHandle, ShardStore}

/**
 * The shard of a metastore table, kept at the table's location: the directory's parent as a
 * [[ShardStore]] root and its last name as the shard's name. (Until the storage layer opens a
 * shard at any location, a location's last name must be a shard name.)
 */
final class ShardAtLocation(location: URI, hadoopConf: Configuration) {
  private val path = new Path(location.toString) // (parsed again: drops a trailing '/')
  private val name = path.getName
  private lazy val store = {
    Option(path.getParent).getOrElse(throw new IllegalArgumentException(
      s"A persist table cannot live at the root of a file system ($location): give it a directory of its own."))
    new ShardStore(path.getParent.toString, hadoopConf)
  }

  private def checked(): Unit =
    try ShardStore.validateName(name)
    catch {
      case e: IllegalArgumentException => throw new IllegalArgumentException(
        s"The persist table location $location cannot hold a shard: ${e.getMessage} Choose a LOCATION whose " +
          "last directory name is such a name.", e)
    }

  def exists: Boolean = { checked(); store.exists(name) }

  def open(): ShardHandle = { checked(); store.open(name) }

  def create(schema: ShardSchema): ShardHandle = { checked(); store.create(name, schema) }

  /** Deletes the shard and its parts; false if there was none. */
  def drop(): Boolean = { checked(); store.drop(name) }
}
