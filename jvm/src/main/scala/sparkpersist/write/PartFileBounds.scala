package sparkpersist.write

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.metadata.BlockMetaData
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.PrimitiveComparator
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.stats.FileBounds

/**
 * The string bounds a written part file records ([[FileBounds]]): the union of its row groups'
 * Parquet min and max, read from its footer (one read of the file's tail).
 *
 * A column gets bounds only when every row group holding a non-null value of it records them in
 * unsigned byte order; a row group counts as all null only when its statistics say that its null
 * count is its value count. Anything else (statistics switched off, or left out because the min and
 * max are longer than Parquet keeps) gives the column no bounds, which readers take as "anything".
 */
private[write] object PartFileBounds {

  /** The bounds of the top-level columns with the given field ids (keyed as given). */
  def read[K](file: FileStatus, conf: Configuration, fieldIds: Map[K, Int]): Map[K, FileBounds] = {
    // With the write's own configuration: without one, Parquet reads Hadoop's default resources anew.
    val reader = ParquetFileReader.open(HadoopInputFile.fromStatus(file, conf), HadoopReadOptions.builder(conf).build())
    try {
      val footer = reader.getFooter
      val names = footer.getFileMetaData.getSchema.getFields.asScala
        .collect { case f if f.getId != null => f.getId.intValue() -> f.getName }.toMap
      val blocks = footer.getBlocks.asScala.toSeq
      fieldIds.flatMap { case (key, id) => names.get(id).flatMap(of(blocks, _)).map(key -> _) }
    } finally reader.close()
  }

  /** The bounds of top-level column `name` over `blocks`, if every row group with a value has them. */
  private def of(blocks: Seq[BlockMetaData], name: String): Option[FileBounds] = {
    var min: UTF8String = null
    var max: UTF8String = null
    val known = blocks.forall { block =>
      block.getColumns.asScala.find(c => c.getPath.size() == 1 && c.getPath.toArray()(0) == name).exists { chunk =>
        val s = chunk.getStatistics
        val allNull = s != null && s.isNumNullsSet && s.getNumNulls == chunk.getValueCount
        allNull || (s != null && !s.isEmpty && s.hasNonNullValue &&
          s.comparator() == PrimitiveComparator.UNSIGNED_LEXICOGRAPHICAL_BINARY_COMPARATOR && {
            val lo = utf8(s.genericGetMin)
            val hi = utf8(s.genericGetMax)
            if (min == null || lo.binaryCompare(min) < 0) min = lo
            if (max == null || hi.binaryCompare(max) > 0) max = hi
            true
          })
      }
    }
    Option.when(known && min != null)(FileBounds(min, max))
  }

  private def utf8(v: Any): UTF8String = UTF8String.fromBytes(v.asInstanceOf[Binary].getBytes)
}
