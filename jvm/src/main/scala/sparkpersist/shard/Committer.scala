package sparkpersist.shard

import org.apache.spark.SPARK_VERSION
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.internal.SQLConf

import sparkpersist.PersistConf

/**
 * Who commits a state version, as its [[VersionRecord]] names them: the Spark user
 * (`spark.sparkUser`) and application id of the session committing (the active one, else the
 * default one, else the JVM's user and none), the engine (`sparkpersist/<version> Apache-Spark/<version>`),
 * the session's `spark.sparkpersist.commit.userMetadata`, and the time.
 */
final case class Committer(nowMs: Long, userName: Option[String], appId: Option[String], engineInfo: String,
    userMetadata: Option[String])

object Committer {
  /** sparkpersist's version (the jar's manifest; `dev` in a build tree) and Spark's. */
  val EngineInfo: String =
    s"sparkpersist/${Option(classOf[Committer].getPackage.getImplementationVersion).getOrElse("dev")} " +
      s"Apache-Spark/$SPARK_VERSION"

  /** The committer of a version written now, in this thread. */
  def current(): Committer = {
    val session = SparkSession.getActiveSession.orElse(SparkSession.getDefaultSession)
    val context = session.map(_.sparkContext)
    Committer(System.currentTimeMillis(),
      context.map(_.sparkUser).orElse(Option(System.getProperty("user.name"))),
      context.map(_.applicationId), EngineInfo,
      PersistConf.CommitUserMetadata.get(session.fold(SQLConf.get)(_.sessionState.conf)))
  }
}
