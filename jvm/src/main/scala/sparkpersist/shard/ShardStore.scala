package sparkpersist.shard

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}

import sparkpersist.PersistConf
import sparkpersist.schema.ShardSchema

/**
 * All shards under one root directory (any Hadoop FileSystem URI), one sub-directory per
 * shard: `<root>/<name>/state/` holds its [[FsStateLog]], `<root>/<name>/parts/` its parts.
 * A shard exists once its state version 0 exists; that file is written put-if-absent, so of two
 * racing `create`s exactly one succeeds.
 *
 * Only Hadoop FileSystem APIs are used. Commits need an atomic create-if-absent, which
 * [[PutIfAbsent]] picks per store (hard link on `file:`, conditional create on S3A, rename on
 * HDFS); on a store with none, creating a shard or committing to one fails with [[NoAtomicCommit]]
 * before anything is written.
 *
 * With `openShards` > 0 the store keeps that many shards open between `open` calls
 * ([[OpenShards]]): opening one again reads only the state versions committed since. A shard at
 * any other directory (a path table) is reached through [[locations]], which shares that cache.
 */
final class ShardStore(
    val root: String,
    hadoopConf: Configuration,
    rollupEvery: Long = PersistConf.RollupEvery.default,
    openShards: Int = 0) {
  import ShardStore._

  private val rootPath: Path = new Path(root)
  private val fs: FileSystem = rootPath.getFileSystem(hadoopConf)
  private val qualifiedRoot: Path = fs.makeQualified(rootPath)

  /** The shards at locations of their own (path tables); this store keeps its named shards through them too. */
  val locations: ShardLocations = new ShardLocations(hadoopConf, rollupEvery, openShards)

  /** Creates shard `name` with `schema` at state version 0 (since = upper = 0, no batches). */
  def create(name: String, schema: ShardSchema): ShardHandle = {
    validateName(name)
    // On a case-insensitive file system (macOS, Windows) the two would be one directory.
    list().find(n => n != name && n.equalsIgnoreCase(name)).foreach { other =>
      throw new IllegalArgumentException(s"Cannot create shard '$name' under $qualifiedRoot: it differs only in " +
        s"case from the existing shard '$other', and on case-insensitive file systems they would be one " +
        "directory. Choose another name, or open the existing shard.")
    }
    locations.create(dirOf(name), name, schema, qualifiedRoot.toString)
  }

  /** Opens shard `name`; [[NoSuchShard]] (listing the existing shards) if it does not exist. */
  def open(name: String): ShardHandle = {
    validateName(name)
    locations.open(dirOf(name), name, new NoSuchShard(name, qualifiedRoot.toString, list()))
  }

  def exists(name: String): Boolean = {
    validateName(name)
    locations.exists(dirOf(name))
  }

  /** The names of all shards under the root, sorted. */
  def list(): Seq[String] =
    if (!fs.exists(qualifiedRoot)) Nil
    else {
      fs.listStatus(qualifiedRoot).toSeq
        .filter(s => s.isDirectory && NamePattern.matches(s.getPath.getName))
        .map(_.getPath.getName)
        .filter(exists)
        .sorted
    }

  /**
   * Deletes shard `name` and all its parts; false if it did not exist. The directory is first
   * renamed aside (atomic on local disk and HDFS), so the shard disappears at once. Writers
   * still appending to a dropped shard fail; stop them first.
   */
  def drop(name: String): Boolean = {
    validateName(name)
    locations.drop(dirOf(name))
  }

  /**
   * Drops shard `name` only if nothing was ever committed to it (its state is still version 0):
   * for undoing a creation whose first write failed, while another writer that found the new
   * shard and committed to it keeps its batch. False if the shard was kept or did not exist.
   */
  def dropIfUnwritten(name: String): Boolean = {
    validateName(name)
    locations.dropIfUnwritten(dirOf(name))
  }

  private def dirOf(name: String): Path = new Path(qualifiedRoot, name)

  override def toString: String = s"ShardStore($qualifiedRoot)"
}

object ShardStore {
  /** Sub-directory of a shard holding its state versions and rollups. */
  val StateDir = "state"

  val MaxNameLength = 128

  private val NamePattern = "[A-Za-z_][A-Za-z0-9_]{0,127}".r

  /**
   * Shard names are identifiers, `[A-Za-z_][A-Za-z0-9_]{0,127}`, so that they are valid SQL
   * identifiers and a single, safe directory name on every file system.
   */
  def validateName(name: String): Unit = {
    def fail(why: String): Nothing = throw new IllegalArgumentException(
      s"Invalid shard name '$name': $why. A shard name must match [A-Za-z_][A-Za-z0-9_]{0,127}: " +
        "a letter or '_', then up to 127 letters, digits or '_'.")
    if (name == null) fail("it is null")
    if (name.isEmpty) fail("it is empty")
    if (name.length > MaxNameLength) fail(s"it is ${name.length} characters long, the limit is $MaxNameLength")
    if (!NamePattern.matches(name)) {
      val i = name.indexWhere(c => !(c == '_' || (c < 128 && c.isLetterOrDigit)))
      if (i >= 0) fail(s"character '${name.charAt(i)}' at position $i is not allowed")
      else fail("it starts with a digit")
    }
  }
}
