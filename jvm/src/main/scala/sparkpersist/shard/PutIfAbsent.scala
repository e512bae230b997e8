package sparkpersist.shard

import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.{FileAlreadyExistsException => NioFileExists, Files, Paths, StandardOpenOption}
import java.util.{Locale, UUID}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileAlreadyExistsException => HadoopFileExists, FileContext, FileSystem, Options, Path}

import sparkpersist.PersistConf
import sparkpersist.errors.{PersistError, PersistThrowable}

/**
 * Writes a file only if no file of that name exists, atomically across processes: readers see
 * either no file or the complete file, and of two racing writers exactly one wins. The state log
 * commits with it (writing version n+1 is the compare-and-set), and so does the Iceberg metadata beside
 * it (`sparkpersist.iceberg.ShardTableOperations`); parts never need it, since they
 * are written once under unique names.
 *
 * Each store gets the primitive it has ([[PutIfAbsent.forStore]]), never a best-effort one:
 *  - `file:` — [[PutIfAbsent.HardLink]];
 *  - a file system that advertises conditional create ([[PutIfAbsent.ConditionalCreateCapability]]:
 *    S3A on S3 and S3-compatible stores with `If-None-Match`) — [[PutIfAbsent.ConditionalCreate]];
 *  - a scheme listed in `spark.sparkpersist.commit.renameSchemes` (HDFS by default), whose rename
 *    is atomic and refuses to overwrite — [[PutIfAbsent.RenameNoOverwrite]];
 *  - anything else — [[PutIfAbsent.Refuse]]: every commit fails with [[NoAtomicCommit]], naming
 *    the store and the setting that would make it safe. Reading such a store still works.
 */
abstract class PutIfAbsent {
  /** True if `target` now holds `bytes`; false (and nothing written) if it already existed. */
  def apply(target: Path, bytes: Array[Byte]): Boolean

  /** The primitive's name, for logs and errors. */
  def name: String

  /** Fails with [[NoAtomicCommit]] if this store cannot commit at all (checked before creating anything). */
  def requireAtomic(): Unit = ()
}

object PutIfAbsent {
  /** Hadoop's create option (and path capability) for a create that fails if the file exists, atomically. */
  val ConditionalCreateCapability = "fs.option.create.conditional.overwrite"

  /** The primitive for the store holding `dir` (`fs`'s scheme and capabilities, `hadoopConf`'s settings). */
  def forStore(fs: FileSystem, dir: Path, hadoopConf: Configuration): PutIfAbsent = {
    val scheme = fs.getScheme.toLowerCase(Locale.ROOT)
    if (scheme == "file") new HardLink(fs)
    else if (fs.hasPathCapability(dir, ConditionalCreateCapability)) new ConditionalCreate(fs)
    else if (PersistConf.RenameSchemes.get(hadoopConf).split(",").contains(scheme)) new RenameNoOverwrite(fs, hadoopConf)
    else new Refuse(fs.getUri.toString, scheme)
  }

  private def tempName(target: Path): String = s".${target.getName}.${UUID.randomUUID()}.tmp"

  /**
   * Local disk: the bytes go to a temp file beside the target (named `.<target>.<uuid>.tmp`, which
   * no reader lists), made durable, then hard-linked to the target, which the kernel refuses if
   * the target exists.
   */
  final class HardLink(fs: FileSystem) extends PutIfAbsent {
    override def name: String = "hard link"

    override def apply(target: Path, bytes: Array[Byte]): Boolean = {
      val dst = Paths.get(fs.makeQualified(target).toUri)
      val tmp = dst.resolveSibling(tempName(target))
      val out = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
      try {
        try {
          val buf = ByteBuffer.wrap(bytes)
          while (buf.hasRemaining) out.write(buf)
          out.force(true)
        } finally out.close()
        BeforePublish.hook(target)
        Files.createLink(dst, tmp)
        syncDirectory(dst.getParent)
        true
      } catch {
        case _: NioFileExists => false
      } finally Files.deleteIfExists(tmp)
    }

    /** Makes the new directory entry durable (best effort: not every platform can open a directory). */
    private def syncDirectory(dir: java.nio.file.Path): Unit =
      try {
        val ch = FileChannel.open(dir, StandardOpenOption.READ)
        try ch.force(true) finally ch.close()
      } catch {
        case _: java.io.IOException =>
      }
  }

  /**
   * Object stores with conditional writes: one create with `If-None-Match: *` semantics (S3A's
   * [[ConditionalCreateCapability]] option). The object appears whole when the upload completes,
   * or the store answers 412 and nothing changes.
   */
  final class ConditionalCreate(fs: FileSystem) extends PutIfAbsent {
    override def name: String = "conditional create"

    override def apply(target: Path, bytes: Array[Byte]): Boolean =
      try {
        val out = fs.createFile(target).overwrite(false).must(ConditionalCreateCapability, true).build()
        try {
          out.write(bytes)
          BeforePublish.hook(target)
        } finally out.close()
        true
      } catch {
        case _: HadoopFileExists | _: NioFileExists => false
        case e: java.io.IOException if isPreconditionFailed(e) => false
      }

    /** S3A reports a lost conditional create as a `RemoteFileChangedException` for HTTP 412. */
    private def isPreconditionFailed(e: Throwable): Boolean =
      Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(10).exists { t =>
        t.getClass.getSimpleName == "RemoteFileChangedException" ||
          Option(t.getMessage).exists(m => m.contains("Status Code: 412") || m.contains("PreconditionFailed"))
      }
  }

  /**
   * File systems whose rename is atomic and refuses to overwrite (HDFS): the bytes go to a temp
   * file beside the target, then `FileContext.rename(tmp, target, NONE)`.
   */
  final class RenameNoOverwrite(fs: FileSystem, hadoopConf: Configuration) extends PutIfAbsent {
    override def name: String = "rename without overwrite"

    override def apply(target: Path, bytes: Array[Byte]): Boolean = {
      val tmp = new Path(target.getParent, tempName(target))
      val out = fs.createFile(tmp).overwrite(false).build() // not recursive: a dropped shard stays dropped
      try {
        try {
          out.write(bytes)
          out.hsync()
        } finally out.close()
        BeforePublish.hook(target)
        FileContext.getFileContext(fs.getUri, hadoopConf).rename(tmp, target, Options.Rename.NONE)
        true
      } catch {
        case _: HadoopFileExists | _: NioFileExists => false
      } finally fs.delete(tmp, false)
    }
  }

  /** A store with no known atomic create-if-absent: commits are refused, never attempted. */
  final class Refuse(store: String, scheme: String) extends PutIfAbsent {
    override def name: String = "none"

    override def apply(target: Path, bytes: Array[Byte]): Boolean = throw new NoAtomicCommit(store, scheme)

    override def requireAtomic(): Unit = throw new NoAtomicCommit(store, scheme)
  }
}

/** A commit was refused because the store offers no atomic create-if-absent. */
/**
 * A test hook of [[PutIfAbsent]]: runs with the bytes for a state file written but not yet visible
 * (a temp file not yet linked or renamed, an object not yet closed). Crash tests halt a writer's
 * JVM here, as `kill -9` would at that moment.
 */
private[sparkpersist] object BeforePublish {
  @volatile var hook: Path => Unit = _ => ()
}

final class NoAtomicCommit(store: String, scheme: String) extends IllegalArgumentException with PersistThrowable {
  override def error: PersistError = PersistError("PERSIST_NO_ATOMIC_COMMIT", "store" -> store, "scheme" -> scheme,
    "advice" -> NoAtomicCommit.advice(scheme))
}

object NoAtomicCommit {
  private def advice(scheme: String): String = scheme match {
    case "s3a" =>
      "S3A commits with conditional writes (If-None-Match): use hadoop-aws 3.4.2 or later with a store " +
        "that supports them (AWS S3, MinIO, R2, ...) and keep fs.s3a.create.conditional.enabled=true " +
        "(spark.hadoop.fs.s3a.create.conditional.enabled)."
    case "s3" | "s3n" =>
      "Use the s3a:// scheme (hadoop-aws), whose conditional writes make commits atomic."
    case _ =>
      s"If renames on '$scheme' are atomic and refuse to overwrite (as on HDFS), add '$scheme' to " +
        s"${PersistConf.RenameSchemes.key}; otherwise keep shards on HDFS, local disk or S3 (s3a://)."
  }
}
