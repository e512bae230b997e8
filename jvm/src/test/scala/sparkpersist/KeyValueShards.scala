package sparkpersist

import org.apache.spark.sql.functions.lit
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}

import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{BatchMeta, ShardHandle}
import sparkpersist.write.{ShardWriter, WriteOptions}

/** Small shards of `(k, v)` appends or `(name, time, diff)` updates, written one batch at a time. */
trait KeyValueShards { self: PersistSparkSession =>
  import testImplicits._

  protected val kv: StructType = StructType(Seq(StructField("k", LongType), StructField("v", StringType)))

  protected def create(name: String, schema: StructType = kv, orderBy: Seq[String] = Seq("k")): ShardHandle =
    store.create(name, ShardSchema.fromStruct(schema, orderBy))

  /** Appends `(k, v)` rows as one batch whose updates are all at `time`. */
  protected def append(name: String, time: Long, rows: (Long, String)*): BatchMeta =
    ShardWriter.write(rows.toDF("k", "v").withColumn("t", lit(time)).coalesce(1), store.open(name),
      WriteOptions(timeCol = Some("t")))

  /** Writes `(name, time, diff)` updates as one batch. */
  protected def update(shard: String, rows: (String, Long, Long)*): BatchMeta =
    ShardWriter.write(rows.toDF("name", "t", "d").coalesce(1), store.open(shard),
      WriteOptions(timeCol = Some("t"), diffCol = Some("d")))
}
