package sparkpersist.read

import java.io.IOException

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile

import sparkpersist.errors.{PersistError, PersistThrowable}
import sparkpersist.shard.ShardState
import sparkpersist.shard.PartFormat

/**
 * A part whose footer records a part format ([[PartFormat.FormatVersionKey]]) newer than this
 * build reads, or a value that is no version at all. The part is refused, not read as if it had
 * the current layout: a newer release may lay parts out otherwise.
 */
final class UnsupportedPartFormat(val path: String, val found: String, val supported: Int)
  extends IOException with PersistThrowable {
  override def error: PersistError =
    if (found.toIntOption.isDefined) {
      PersistError("PERSIST_UNSUPPORTED_FORMAT.PART", "path" -> path, "found" -> found, "supported" -> supported)
    } else PersistError("PERSIST_UNSUPPORTED_FORMAT.PART_VERSION_DAMAGED", "path" -> path, "found" -> found)
}

private[read] object UnsupportedPartFormat {
  /**
   * The newest part format this build reads. Parts record the state format version of the
   * release that wrote them: 1, or 2 since a part may be stamped (no `time` and `diff` columns,
   * [[PartFormat.TimeKey]]); this build reads both.
   */
  val ReadsUpTo: Int = ShardState.FormatVersion

  /**
   * Checks the format version `recorded` in the footer of the part at `path`. Every release
   * records one; a Parquet file without it was not written by sparkpersist (a test or a tool
   * writing parts by field id) and is read as the current format, as before the check.
   */
  def check(path: String, recorded: Option[String]): Unit = recorded.foreach { v =>
    if (!v.toIntOption.exists(_ <= ReadsUpTo)) throw new UnsupportedPartFormat(path, v, ReadsUpTo)
  }

  /** [[check]] of the part at `path`, reading its footer (for readers that do not hand theirs out). */
  def checkFooter(path: Path, conf: Configuration): Unit = {
    val reader = ParquetFileReader.open(HadoopInputFile.fromPath(path, conf), HadoopReadOptions.builder(conf).build())
    val recorded = try Option(reader.getFileMetaData.getKeyValueMetaData.get(PartFormat.FormatVersionKey))
    finally Try(reader.close())
    check(path.toString, recorded)
  }
}
