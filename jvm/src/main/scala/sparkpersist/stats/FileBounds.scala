package sparkpersist.stats

import org.apache.spark.unsafe.types.UTF8String

/**
 * The least and greatest non-null value of a string column in one part file, as the file's own
 * statistics record them. Parquet already compares every value it writes to keep each row group's
 * min and max, in unsigned byte order (Spark's binary string order); a part's string bounds are
 * taken from there rather than compared a second time per value ([[FileBounded]]).
 */
final case class FileBounds(min: UTF8String, max: UTF8String)

/**
 * A collector whose string bounds may come from the part file ([[FileBounds]]) instead of its own
 * comparisons: built so, it keeps no bounds of its own, and reports those given to
 * [[useFileBounds]] (none when the file records none, for instance past Parquet's statistics size
 * limit: readers then take the column's values as "anything").
 */
trait FileBounded {
  /** Whether this collector's bounds come from the file. */
  def boundsFromFile: Boolean

  /** The file's bounds of the values seen, read once the file is written. */
  def useFileBounds(bounds: Option[FileBounds]): Unit
}
