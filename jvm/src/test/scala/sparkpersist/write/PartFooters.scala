package sparkpersist.write

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.schema.GroupType

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

  /** Every field of the part at `path`, at any depth: its path of names -> its field id (-1 for none). */
  def allFieldIds(path: String, conf: Configuration): Seq[(Seq[String], Int)] = {
    val reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(path), conf))
    def fields(group: GroupType, prefix: Seq[String]): Seq[(Seq[String], Int)] = group.getFields.asScala.toSeq.flatMap { f =>
      val here = (prefix :+ f.getName) -> Option(f.getId).fold(-1)(_.intValue())
      here +: (if (f.isPrimitive) Nil else fields(f.asGroupType(), prefix :+ f.getName))
    }
    try fields(reader.getFooter.getFileMetaData.getSchema, Nil)
    finally reader.close()
  }
}
