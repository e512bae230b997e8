package sparkpersist.shard

import java.io.File
import java.nio.file.Files

import scala.util.Random

import org.apache.commons.io.FileUtils
import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.schema.ShardSchema
import sparkpersist.stats.{ColumnStats, PartStats}

/** Shard schemas, batches with realistic per-part stats, and temp roots for shard tests and benchmarks. */
object ShardFixtures {

  /** Six columns of common types: what an event table looks like. */
  val eventSchema: ShardSchema = ShardSchema.fromStruct(
    StructType(Seq(
      StructField("id", LongType, nullable = false),
      StructField("event_ts", TimestampType),
      StructField("user_name", StringType),
      StructField("amount", DecimalType(12, 2)),
      StructField("score", DoubleType),
      StructField("day", DateType))),
    orderBy = Seq("id"))

  /**
   * A batch [lower, upper) of `parts` parts in one run, each with stats on every column of
   * [[eventSchema]] drawn from `rnd` (ids ascending across parts, as a sorted run has them).
   */
  def eventBatch(id: String, lower: Long, upper: Long, parts: Int, rnd: Random): BatchMeta = {
    val rowsPerPart = 10000L
    val partMetas = (0 until parts).map { i =>
      val rows = rowsPerPart - rnd.nextInt(100)
      val firstId = lower * 1000 + i * rowsPerPart
      val tsLow = lower * 1000 + rnd.nextInt(1000000)
      val amountLow = Decimal(BigDecimal(rnd.nextInt(100000)) / 100)
      val stats = PartStats(rows, 1L << 20, Map(
        1 -> ColumnStats(0, Some(firstId), Some(firstId + rows - 1)),
        2 -> ColumnStats(rnd.nextInt(5), Some(tsLow), Some(tsLow + 3600L * 1000000)),
        3 -> ColumnStats(rnd.nextInt(5), Some(UTF8String.fromString(f"user_${rnd.nextInt(1000)}%04d")),
          Some(UTF8String.fromString(f"user_${1000 + rnd.nextInt(1000)}%04d"))),
        4 -> ColumnStats(0, Some(amountLow), Some(Decimal(amountLow.toBigDecimal + 500))),
        5 -> ColumnStats(rnd.nextInt(3), Some(rnd.nextDouble()), Some(1 + rnd.nextDouble())),
        6 -> ColumnStats(0, Some(19000 + (lower / 86400000L).toInt), Some(19001 + (lower / 86400000L).toInt))))
      PartMeta(s"parts/$id/part-$i.parquet", rows, 1L << 20, lower, upper - 1,
        hasRetractions = false, Some(stats))
    }
    BatchMeta(id, lower, upper, Vector(RunMeta(partMetas.toVector)), committedAtMs = 1700000000000L + lower)
  }

  /** A fresh directory, deleted after `f`. */
  def withTempDir[T](f: File => T): T = {
    val dir = Files.createTempDirectory("sparkpersist-shard").toFile
    try f(dir) finally FileUtils.deleteDirectory(dir)
  }

  def hadoopConf: Configuration = new Configuration()
}
