package sparkpersist.util

import org.apache.spark.sql.internal.SQLConf

/** Code run under other SQL settings than the thread's, for Spark functions that read them from `SQLConf.get`. */
object SqlSettings {
  /**
   * Runs `body` with the thread's SQL configuration but for `settings`. A copy, not
   * `SQLConf.get.clone()`: in a task, `SQLConf.get` is a `ReadOnlySQLConf`, which refuses to be cloned.
   */
  def withSettings[T](settings: Map[String, String])(body: => T): T = {
    val pinned = new SQLConf
    (SQLConf.get.getAllConfs ++ settings).foreach { case (k, v) => pinned.setConfString(k, v) }
    SQLConf.withExistingConf(pinned)(body)
  }
}
