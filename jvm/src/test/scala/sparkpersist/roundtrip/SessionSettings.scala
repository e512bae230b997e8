package sparkpersist.roundtrip

import org.apache.spark.sql.SparkSession

/** Runs code under some session settings, restoring the previous ones after (for any session, suite or bench). */
object SessionSettings {
  def apply[T](spark: SparkSession, settings: Map[String, String])(body: => T): T = {
    val before = settings.keys.map(k => k -> spark.conf.getOption(k)).toMap
    settings.foreach { case (k, v) => spark.conf.set(k, v) }
    try body
    finally before.foreach {
      case (k, Some(v)) => spark.conf.set(k, v)
      case (k, None) => spark.conf.unset(k)
    }
  }
}
