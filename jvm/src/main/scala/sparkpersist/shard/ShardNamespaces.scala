package sparkpersist.shard

import java.io.{ByteArrayOutputStream, FileNotFoundException, InputStreamReader, OutputStreamWriter}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.Properties

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}

/**
 * The namespaces of a [[ShardStore]]: nested directories under its root, each marked by a small
 * properties file, [[ShardNamespaces.MarkerFile]], that holds the namespace's properties (its
 * comment among them). The marker is written put-if-absent, as state versions are, so of two
 * racing creations one wins. A directory is a namespace or a shard (a shard's has
 * `state/<version 0>`), never both: the store refuses to create either where the other is.
 */
private[shard] final class ShardNamespaces(fs: FileSystem, hadoopConf: Configuration) {
  import ShardNamespaces._

  def exists(dir: Path): Boolean = fs.exists(new Path(dir, MarkerFile))

  /** Writes `dir`'s marker with `properties`; false if the namespace already existed. */
  def create(dir: Path, properties: Map[String, String]): Boolean = {
    fs.mkdirs(dir)
    PutIfAbsent.forStore(fs, dir, hadoopConf)(new Path(dir, MarkerFile), encode(properties))
  }

  /** The properties of the namespace at `dir`; None if there is none. */
  def properties(dir: Path): Option[Map[String, String]] =
    try {
      val in = fs.open(new Path(dir, MarkerFile))
      try {
        val props = new Properties()
        props.load(new InputStreamReader(in, UTF_8))
        Some(props.asScala.toMap)
      } finally in.close()
    } catch { case _: FileNotFoundException => None }

  /** The names of the namespaces directly under `dir`, sorted. */
  def children(dir: Path): Seq[String] =
    if (!fs.exists(dir)) Nil
    else fs.listStatus(dir).toSeq
      .filter(s => s.isDirectory && ShardStore.isName(s.getPath.getName) && exists(s.getPath))
      .map(_.getPath.getName).sorted

  private def encode(properties: Map[String, String]): Array[Byte] = {
    val props = new Properties()
    properties.foreach { case (k, v) => props.setProperty(k, v) }
    val bytes = new ByteArrayOutputStream()
    val out = new OutputStreamWriter(bytes, UTF_8)
    props.store(out, "sparkpersist namespace")
    out.close()
    bytes.toByteArray
  }
}

private[shard] object ShardNamespaces {
  /** The file marking a directory as a namespace and holding its properties. */
  val MarkerFile = "_namespace.properties"
}
