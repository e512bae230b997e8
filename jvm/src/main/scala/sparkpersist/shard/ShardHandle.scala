package sparkpersist.shard

import java.util.UUID

import org.apache.hadoop.fs.{FileSystem, Path}

import sparkpersist.codec.Check

/**
 * A handle on one shard: its directory, its state log, and where its parts go. Parts live
 * under `<dir>/parts/<batchId>/`; [[PartMeta.key]] is a part's path relative to `dir`, so a
 * shard directory can be moved or copied as a whole. Executors get plain paths, not handles.
 */
final class ShardHandle(val name: String, val dir: Path, val log: StateLog, val fs: FileSystem) {
  private val qualifiedDir: Path = fs.makeQualified(dir)
  private val dirPrefix: String = qualifiedDir.toUri.getPath.stripSuffix("/") + "/"

  /** The newest state of the shard. */
  def state: ShardState = log.current()

  /** A fresh, unique path for one part of batch `batchId`. */
  def newPartPath(batchId: String): Path = {
    Check.arg(ShardHandle.BatchIdPattern.matches(batchId),
      s"Invalid batch id '$batchId' for shard '$name': a batch id is a single path segment of " +
        "letters, digits, '_', '-' or '.', not starting with '.' (e.g. a UUID).")
    new Path(qualifiedDir, s"${ShardHandle.PartsDir}/$batchId/${UUID.randomUUID()}.parquet")
  }

  /** The absolute path of `part`. */
  def partPath(part: PartMeta): Path = new Path(qualifiedDir, checkedKey(part))

  /**
   * `partPath(part).toUri.toString`, what a task opens, without parsing a URI for the keys
   * writers make (letters, digits, `_`, `.`, `-` and `/`): a scan of many parts builds one each.
   */
  def partUri(part: PartMeta): String = {
    val key = checkedKey(part)
    if (key.forall(ShardHandle.plain)) s"$dirUri/$key" else partPath(part).toUri.toString
  }

  private val dirUri: String = qualifiedDir.toUri.toString.stripSuffix("/")

  /** The file key of `part` (a negated part reads its original's file), checked to lie under the shard. */
  private def checkedKey(part: PartMeta): String = {
    val key = part.fileKey
    Check.arg(key.nonEmpty && !key.startsWith("/") && !key.contains(':') &&
      !key.split('/').exists(s => s.isEmpty || s == "." || s == ".."),
      s"Part key '$key' of shard '$name' is not a plain path relative to the shard directory.")
    key
  }

  /** The key (path relative to `dir`) of a file under the shard's directory. */
  def relativeKey(path: Path): String = {
    val qualified = fs.makeQualified(path)
    val p = qualified.toUri.getPath
    Check.arg(sameFileSystem(qualified) && p.startsWith(dirPrefix) && p.length > dirPrefix.length,
      s"Path $path is not under the directory $qualifiedDir of shard '$name'.")
    p.substring(dirPrefix.length)
  }

  private def sameFileSystem(p: Path): Boolean = {
    val (a, b) = (p.toUri, qualifiedDir.toUri)
    a.getScheme == b.getScheme && a.getAuthority == b.getAuthority
  }

  override def toString: String = s"ShardHandle($name at $qualifiedDir)"
}

object ShardHandle {
  /** Sub-directory of a shard holding its parts. */
  val PartsDir = "parts"
  private val BatchIdPattern = "[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}".r

  /** Characters a URI path holds as they are (no escaping, no normalization). */
  private def plain(c: Char): Boolean =
    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' || c == '/'
}
