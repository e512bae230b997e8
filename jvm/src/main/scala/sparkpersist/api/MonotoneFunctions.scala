package sparkpersist.api

import java.util.Locale

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.expressions.UserDefinedFunction

import sparkpersist.PersistConf
import sparkpersist.errors.PersistErrors

/**
 * Declaring user functions monotone so part pruning maps ranges through them (as built-in
 * monotone functions): `spark.sparkpersist.udf.monotone` lists them. A declared function must be
 * deterministic, non-decreasing (`up`) or non-increasing (`down`) in every argument, and raise
 * only beyond some bound; pruning evaluates it at range endpoints on the driver, so it must be a
 * JVM function (Scala/Java UDF). A wrong declaration skips parts it should not: verify with
 * `spark.sparkpersist.pushdown.mode=soft` first. Undeclared functions keep every part.
 */
object MonotoneFunctions {

  /** Registers `fn` as SQL function `name` and declares it monotone in `direction` (up/down). */
  def register(spark: SparkSession, name: String, fn: UserDefinedFunction, direction: String): Unit = {
    spark.udf.register(name, fn)
    declare(spark, name, direction)
  }

  /** Declares the already registered JVM function `name` monotone in `direction` (up/down). */
  def declare(spark: SparkSession, name: String, direction: String): Unit = {
    val key = PersistConf.MonotoneUdfs.key
    val current = PersistConf.MonotoneUdfs.get(spark.sessionState.conf).getOrElse(Map.empty)
    val dir = direction.trim.toLowerCase(Locale.ROOT)
    if (dir != "up" && dir != "down") {
      throw PersistErrors.invalidOption(s"Cannot declare '$name' monotone", s"direction must be 'up' or 'down', got '$direction'")
    }
    val declared = current.updated(name.trim.toLowerCase(Locale.ROOT), dir)
    spark.conf.set(key, declared.toSeq.sorted.map { case (n, d) => s"$n:$d" }.mkString(","))
  }
}
