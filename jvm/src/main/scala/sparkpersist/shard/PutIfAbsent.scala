package sparkpersist.shard

import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.{FileAlreadyExistsException => NioFileExists, Files, Paths, StandardOpenOption}
import java.util.UUID

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileAlreadyExistsException => HadoopFileExists, FileContext, FileSystem, Options, Path}

/**
 * Writes a file only if no file of that name exists, atomically across processes: readers see
 * either no file or the complete file, and of two racing writers exactly one wins.
 *
 * The bytes first go to a temp file beside the target (named `.<target>.<uuid>.tmp`, which no
 * reader lists), and are then published in one atomic step that fails if the target exists:
 *  - `file:` — a hard link (`Files.createLink`), which the kernel refuses if the target exists;
 *  - other file systems — `FileContext.rename(tmp, target, Options.Rename.NONE)`, atomic and
 *    overwrite-refusing on HDFS.
 *
 * S3A's rename is a copy, not atomic: safe commits there need S3 conditional writes
 * (If-None-Match) or a database consensus, neither of which this class provides.
 */
private[shard] final class PutIfAbsent(fs: FileSystem, hadoopConf: Configuration, useHardLinks: Boolean) {

  def this(fs: FileSystem, hadoopConf: Configuration) = this(fs, hadoopConf, fs.getScheme == "file")

  /** True if `target` now holds `bytes`; false (and nothing written) if it already existed. */
  def apply(target: Path, bytes: Array[Byte]): Boolean =
    if (useHardLinks) linkLocal(target, bytes) else renameNoOverwrite(target, bytes)

  private def tempName(target: Path): String = s".${target.getName}.${UUID.randomUUID()}.tmp"

  private def linkLocal(target: Path, bytes: Array[Byte]): Boolean = {
    val dst = Paths.get(fs.makeQualified(target).toUri)
    val tmp = dst.resolveSibling(tempName(target))
    val out = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
    try {
      try {
        val buf = ByteBuffer.wrap(bytes)
        while (buf.hasRemaining) out.write(buf)
        out.force(true)
      } finally out.close()
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

  private def renameNoOverwrite(target: Path, bytes: Array[Byte]): Boolean = {
    val tmp = new Path(target.getParent, tempName(target))
    val out = fs.createFile(tmp).overwrite(false).build() // not recursive: a dropped shard stays dropped
    try {
      try {
        out.write(bytes)
        out.hsync()
      } finally out.close()
      FileContext.getFileContext(fs.getUri, hadoopConf).rename(tmp, target, Options.Rename.NONE)
      true
    } catch {
      case _: HadoopFileExists | _: NioFileExists => false
    } finally fs.delete(tmp, false)
  }
}
