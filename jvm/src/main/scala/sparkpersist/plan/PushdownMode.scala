package sparkpersist.plan

import org.apache.spark.sql.internal.SQLConf

import sparkpersist.PersistConf

/** [[PersistConf.PushdownMode]], typed. */
sealed abstract class PushdownMode(val name: String)

object PushdownMode {
  /** Skip the parts the filter provably rejects. */
  case object On extends PushdownMode("on")
  /** Decide, but read every part and verify the parts that would have been skipped. */
  case object Soft extends PushdownMode("soft")
  /** Read every part. */
  case object Off extends PushdownMode("off")

  def of(conf: SQLConf): PushdownMode = PersistConf.PushdownMode.get(conf) match {
    case On.name => On
    case Soft.name => Soft
    case _ => Off
  }
}
