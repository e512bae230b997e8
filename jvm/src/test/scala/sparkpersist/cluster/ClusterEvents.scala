package sparkpersist.cluster

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, lit}

/** The clustering suites' events: ids from `first`, 8 countries, `users` user ids, an amount, one ingest time. */
private[cluster] object ClusterEvents {
  val Countries = Seq("BR", "DE", "FR", "IN", "JP", "MX", "NG", "US")

  def apply(spark: SparkSession, first: Long, rows: Int, users: Int, ingest: Long): DataFrame = {
    val id = col("id") + lit(first)
    spark.range(0, rows, 1, 1).select(id.as("id"),
      lit(Countries.toArray).getItem(((id * 5 + (id / 7).cast("long")) % 8).cast("int")).as("country"),
      ((id * 7919) % users).cast("int").as("user_id"),
      ((id * 31) % 1000 / 10.0).as("amount"),
      lit(ingest).as("ingest"))
  }
}
