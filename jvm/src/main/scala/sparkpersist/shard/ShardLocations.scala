package sparkpersist.shard

import java.io.FileNotFoundException
import java.util.UUID

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileContext, Options, Path}

import sparkpersist.PersistConf
import sparkpersist.errors.{PersistError, PersistErrors}
import sparkpersist.schema.ShardSchema

/**
 * Shards at locations: a shard is whatever directory it is given, on any Hadoop FileSystem
 * (`file:/data/t`, `/data/t` on the default file system, `hdfs://nn/warehouse/t`,
 * `s3a://bucket/key`). The directory's layout is every shard's (`state/` holds its
 * [[FsStateLog]], `parts/` its parts), a shard exists once its state version 0 exists, and that
 * version, like every commit, is written put-if-absent by the store's [[PutIfAbsent]]: of two
 * racing creations exactly one succeeds, and a store with no atomic create-if-absent refuses
 * with [[NoAtomicCommit]] before anything is written. The directory's last segment may be any
 * name; [[ShardStore]] keeps shards of validated names under its root through this class.
 *
 * Use one instance per catalog (or session) so that its [[OpenShards]] cache is shared:
 * {{{
 *   val shards = new ShardLocations(spark.sessionState.newHadoopConf(),
 *     openShards = PersistConf.OpenShards.get(spark.sessionState.conf).toInt)
 *   val dir = new Path(table.location)          // e.g. a metastore table's LOCATION
 *   val handle = if (shards.exists(dir)) shards.open(dir) else shards.create(dir, schema)
 *   // ... read handle.state, commit with handle.log, as for any shard of a ShardStore ...
 *   shards.drop(dir)                            // the directory and all its parts
 * }}}
 * `create` throws [[ShardAlreadyExists]] when a shard is already there, `open` [[NoSuchShard]]
 * when none is. A handle's name (in its errors and scan reports) is the qualified directory URI.
 * Thread-safe.
 */
final class ShardLocations(
    hadoopConf: Configuration,
    rollupEvery: Long = PersistConf.RollupEvery.default,
    openShards: Int = 0) {

  private val kept = new OpenShards(openShards)

  /**
   * Creates a shard with `schema` at `dir` (state version 0: since = upper = 0, no batches). A
   * directory that exists and holds anything but a shard is refused (an IllegalArgumentException):
   * dropping the shard deletes its directory, which must then hold nothing else.
   */
  def create(dir: Path, schema: ShardSchema): ShardHandle = {
    val at = qualified(dir)
    val fs = at.getFileSystem(hadoopConf)
    if (!exists(at) && fs.exists(at) && (!fs.getFileStatus(at).isDirectory || fs.listStatus(at).nonEmpty)) {
      throw PersistError("PERSIST_LOCATION_NOT_EMPTY", "what" -> "a shard", "location" -> at, "advice" ->
        "Dropping the shard would delete them with its directory: choose a new or empty directory.").invalidInput()
    }
    create(at, at.toString, schema, parentOf(at))
  }

  /** Opens the shard at `dir`; [[NoSuchShard]] if there is none. */
  def open(dir: Path): ShardHandle = {
    val at = qualified(dir)
    open(at, at.toString, new NoSuchShard(at.toString, parentOf(at), Nil, located = true))
  }

  def exists(dir: Path): Boolean = {
    val at = qualified(dir)
    at.getFileSystem(hadoopConf).exists(versionZero(at))
  }

  /**
   * Deletes the shard at `dir` and all its parts; false if there was none. The directory is first
   * renamed aside (atomic on local disk and HDFS), so the shard disappears at once. Writers still
   * appending to a dropped shard fail; stop them first.
   */
  def drop(dir: Path): Boolean = exists(dir) && {
    val at = qualified(dir)
    val fs = at.getFileSystem(hadoopConf)
    kept.remove(at.toString)
    val aside = new Path(at.getParent, s".dropped-${at.getName}-${UUID.randomUUID()}")
    fs.rename(at, aside) && fs.delete(aside, true)
  }

  /**
   * Drops the shard at `dir` only if nothing was ever committed to it (its state is still version
   * 0): for undoing a creation whose first write failed, while another writer that found the new
   * shard and committed to it keeps its batch. False if the shard was kept or there was none.
   */
  def dropIfUnwritten(dir: Path): Boolean = exists(dir) && {
    val at = qualified(dir)
    handle(at, at.toString).log.current().seqNo == 0L && drop(at)
  }

  /**
   * Moves the shard at `from` to `to` with one rename of its directory, on stores whose rename is
   * atomic: local disk and the schemes of [[PersistConf.RenameSchemes]] (HDFS), where the rename
   * refuses to overwrite. Elsewhere (object stores copy every file) it is refused with an
   * UnsupportedOperationException before anything moves. Kept handles of `from` are forgotten; a
   * process still holding one fails its next commit (the directory is gone), as after a drop.
   */
  def move(from: Path, to: Path): Unit = {
    val (src, dst) = (qualified(from), qualified(to))
    val fs = src.getFileSystem(hadoopConf)
    val scheme = fs.getScheme.toLowerCase(java.util.Locale.ROOT)
    if (!ShardLocations.atomicRename(scheme, hadoopConf)) {
      throw PersistErrors.unsupported(s"Cannot rename shard $src to $dst", s"renaming a directory on " +
        s"'$scheme' is not atomic (it copies every file), so readers and writers could see half a shard. Renames " +
        s"are done where the store renames atomically (local disk, HDFS; ${PersistConf.RenameSchemes.key}). " +
        "Create the new table and copy the rows with INSERT INTO ... SELECT instead, then drop the old one.")
    }
    if (src.toUri.getScheme != dst.toUri.getScheme || src.toUri.getAuthority != dst.toUri.getAuthority) {
      throw PersistErrors.unsupported(s"Cannot rename shard $src to $dst", "they are on different file " +
        "systems, and a rename moves a directory within one. Copy the rows with INSERT INTO ... SELECT instead.")
    }
    if (fs.exists(dst)) {
      throw new ShardAlreadyExists(dst.toString, parentOf(dst))
    }
    forget(src)
    fs.mkdirs(dst.getParent)
    FileContext.getFileContext(fs.getUri, hadoopConf).rename(src, dst, Options.Rename.NONE)
  }

  /** `dir` made absolute on its file system (scheme and authority filled in), without a trailing `/`. */
  def qualified(dir: Path): Path = {
    val normalized = new Path(dir.toString) // as parsed from a string: no trailing '/', so one key per directory
    normalized.getFileSystem(hadoopConf).makeQualified(normalized)
  }

  /** Creates shard `name` at the qualified `dir`; [[ShardAlreadyExists]] names it under `where`. */
  private[shard] def create(dir: Path, name: String, schema: ShardSchema, where: String): ShardHandle = {
    val log = stateLog(dir, name)
    if (!log.create(CreateShard(name, UUID.randomUUID().toString, schema))) throw new ShardAlreadyExists(name, where)
    handle(dir, name, log)
  }

  /** Opens shard `name` at the qualified `dir`, kept open while its version 0 is the same file; else `missing`. */
  private[shard] def open(dir: Path, name: String, missing: => NoSuchShard): ShardHandle = {
    val created =
      try dir.getFileSystem(hadoopConf).getFileStatus(versionZero(dir))
      catch { case _: FileNotFoundException => throw missing }
    kept(dir.toString, OpenShards.created(created))(handle(dir, name))
  }

  /** Forgets a kept handle of the qualified `dir` (its shard was moved or dropped by the caller). */
  private[shard] def forget(dir: Path): Unit = kept.remove(dir.toString)

  private def parentOf(dir: Path): String = Option(dir.getParent).getOrElse(dir).toString

  private def versionZero(dir: Path): Path = new Path(new Path(dir, ShardStore.StateDir), FsStateLog.versionName(0))

  private def stateLog(dir: Path, name: String): FsStateLog =
    new FsStateLog(name, new Path(dir, ShardStore.StateDir), hadoopConf, rollupEvery)

  private def handle(dir: Path, name: String, log: FsStateLog): ShardHandle =
    new ShardHandle(name, dir, log, dir.getFileSystem(hadoopConf))

  private def handle(dir: Path, name: String): ShardHandle = handle(dir, name, stateLog(dir, name))
}

object ShardLocations {
  /** True if directories on `scheme` rename atomically and refuse to overwrite (local disk, [[PersistConf.RenameSchemes]]). */
  def atomicRename(scheme: String, hadoopConf: Configuration): Boolean =
    scheme == "file" || PersistConf.RenameSchemes.get(hadoopConf).split(",").map(_.trim).contains(scheme)
}
