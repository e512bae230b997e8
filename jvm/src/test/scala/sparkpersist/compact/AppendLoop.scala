package sparkpersist.compact

import scala.util.control.NonFatal

import org.apache.spark.sql.SparkSession

import sparkpersist.shard.ShardStore
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * The other process of [[ConcurrentCompactionSuite]]: appends `count` batches to a shard, one
 * after the other, and prints `ACK <i>` once batch i is committed (`FAIL <i>` and a retry when an
 * append fails). Batch i holds rows `(i * 10 + j, "b<i>-<j>")` for j in 0..4.
 *
 * With a `tag`, batch i holds `(i * 10 + j, "<tag>b<i>-<j>")`, so that several processes append
 * distinct rows.
 *
 * Usage: `AppendLoop <root URI> <shard> <count> [tag]`
 */
object AppendLoop {
  def main(args: Array[String]): Unit = {
    val Seq(root, shard, count) = args.toSeq.take(3)
    val tag = args.lift(3).getOrElse("")
    val spark = SparkSession.builder().master("local[1]").appName("AppendLoop")
      .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    import spark.implicits._
    val store = new ShardStore(root, spark.sparkContext.hadoopConfiguration)
    println("READY")
    (0 until count.toInt).foreach { i =>
      val rows = (0 until 5).map(j => (i * 10L + j, s"${tag}b$i-$j")).toDF("k", "v").coalesce(1)
      var done = false
      while (!done) {
        try {
          ShardWriter.write(rows, store.open(shard), WriteOptions())
          println(s"ACK $i")
          done = true
        } catch {
          case NonFatal(e) => println(s"FAIL $i ${e.getMessage.replace('\n', ' ')}")
        }
      }
    }
    spark.stop()
  }
}
