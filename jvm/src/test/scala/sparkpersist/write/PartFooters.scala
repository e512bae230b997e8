package sparkpersist.write

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile

/** Reads what a part file says about itself, as a tool that knows nothing of shards would. */
object PartFooters {
  /** The Parquet fields (name -> field id) and footer key/value metadata of the part at `path`. */
  def read(path: String, conf: Configuration): (Seq[(String, Int)], Map[String, String]) = {
    val reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(path), conf))
    try {
      val meta = reader.getFooter.getFileMetaData
      (meta.getSchema.getFields.asScala.map(f => f.getName -> f.getId.intValue()).toSeq,
        meta.getKeyValueMetaData.asScala.toMap)
    } finally reader.close()
  }
}
