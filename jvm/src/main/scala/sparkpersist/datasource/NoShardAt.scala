package sparkpersist.datasource

import java.util

import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * What `format("persist")` hands Spark for a path holding no shard yet: a write creates the shard
 * there ([[PathWrites]]); a read (with a schema given, else Spark asks for the schema first) fails
 * saying there is no shard.
 */
private[datasource] final class NoShardAt(path: String, givenSchema: StructType) extends Table with SupportsRead {
  override def name(): String = path

  override def schema(): StructType = Option(givenSchema).getOrElse(new StructType())

  override def capabilities(): util.Set[TableCapability] =
    util.EnumSet.of(TableCapability.BATCH_READ, TableCapability.MICRO_BATCH_READ)

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder =
    throw PathWrites.noShard(path)
}
