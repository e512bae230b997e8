package sparkpersist.write

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.hadoop.api.WriteSupport.WriteContext
import org.apache.spark.sql.execution.datasources.parquet.ParquetWriteSupport

import sparkpersist.shard.PartFormat

/**
 * Spark's own Parquet write support, plus the sparkpersist footer entries ([[PartFormat]]) taken
 * from the Hadoop configuration the part is written with.
 */
class PartWriteSupport extends ParquetWriteSupport {
  override def init(configuration: Configuration): WriteContext = {
    val context = super.init(configuration)
    val footer = PartFormat.footerKeys.flatMap(k => Option(configuration.get(k)).map(k -> _))
    new WriteContext(context.getSchema, (context.getExtraMetaData.asScala ++ footer).asJava)
  }
}
