package sparkpersist.shard

import java.io.FileNotFoundException
import java.util.UUID

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}

import sparkpersist.PersistConf
import sparkpersist.errors.PersistError
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
 * ([[OpenShards]]): opening one again reads only the state versions committed since.
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
  private val kept = new OpenShards(openShards)

  /** Creates shard `name` with `schema` at state version 0 (since = upper = 0, no batches). */
  def create(name: String, schema: ShardSchema): ShardHandle = {
    validateName(name)
    // On a case-insensitive file system (macOS, Windows) the two would be one directory.
    list().find(n => n != name && n.equalsIgnoreCase(name)).foreach { other =>
      throw PersistError("PERSIST_INVALID_NAME.SHARD_CASE", "name" -> name, "root" -> qualifiedRoot,
        "existing" -> other).invalidInput()
    }
    val log = stateLog(name)
    if (!log.create(CreateShard(name, UUID.randomUUID().toString, schema))) {
      throw new ShardAlreadyExists(name, qualifiedRoot.toString)
    }
    new ShardHandle(name, new Path(qualifiedRoot, name), log, fs)
  }

  /** Opens shard `name`; [[NoSuchShard]] (listing the existing shards) if it does not exist. */
  def open(name: String): ShardHandle = {
    validateName(name)
    val created =
      try fs.getFileStatus(versionZero(name))
      catch { case _: FileNotFoundException => throw new NoSuchShard(name, qualifiedRoot.toString, list()) }
    kept(name, OpenShards.created(created))(handle(name))
  }

  def exists(name: String): Boolean = {
    validateName(name)
    fs.exists(versionZero(name))
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
  def drop(name: String): Boolean =
    exists(name) && {
      kept.remove(name)
      val aside = new Path(qualifiedRoot, s".dropped-$name-${UUID.randomUUID()}")
      fs.rename(new Path(qualifiedRoot, name), aside) && fs.delete(aside, true)
    }

  /**
   * Drops shard `name` only if nothing was ever committed to it (its state is still version 0):
   * for undoing a creation whose first write failed, while another writer that found the new
   * shard and committed to it keeps its batch. False if the shard was kept or did not exist.
   */
  def dropIfUnwritten(name: String): Boolean =
    exists(name) && handle(name).log.current().seqNo == 0L && drop(name)

  private def stateDirOf(name: String): Path = new Path(new Path(qualifiedRoot, name), StateDir)

  private def versionZero(name: String): Path = new Path(stateDirOf(name), FsStateLog.versionName(0))

  private def stateLog(name: String): FsStateLog = new FsStateLog(name, stateDirOf(name), hadoopConf, rollupEvery)

  private def handle(name: String): ShardHandle = new ShardHandle(name, new Path(qualifiedRoot, name), stateLog(name), fs)

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
    def fail(why: String): Nothing =
      throw PersistError("PERSIST_INVALID_NAME.SHARD", "name" -> name, "reason" -> why).invalidInput()
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
