package sparkpersist.catalog

import java.util.{Locale, ServiceLoader}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure

import sparkpersist.errors.PersistError
import sparkpersist.shard.ShardStore

/**
 * Procedures that a package above `catalog` offers in the persist catalog's `system` namespace
 * (`CALL persist.system.<name>(...)`), acting on the catalog's shards: the lifecycle of
 * `sparkpersist.compact.LifecycleProcedures` (`compact`, `gc`, `drop_batch`) and the write of
 * `sparkpersist.api.WriteProcedures` (`write`, what the Python package calls over Spark Connect).
 *
 * Why a seam (`java.util.ServiceLoader`, `META-INF/services/sparkpersist.catalog.SystemProcedures`)
 * and not a registration by the layer above: the catalog is what Spark instantiates, by class name,
 * in every session that reaches a procedure, and a session configured with the catalog alone
 * (`spark.sql.catalog.persist=sparkpersist.catalog.PersistCatalog`, no `spark.sql.extensions`)
 * loads no class above `catalog` before its first `CALL`: nothing up there could register first.
 * The procedures over what lies below the catalog (`last_scans`, `clustering`, `iceberg`) it lists itself.
 */
trait SystemProcedures {
  def procedures(store: ShardStore): Seq[UnboundProcedure]
}

object SystemProcedures {
  /** The namespace the procedures live in. */
  val Namespace = "system"

  private lazy val providers: Seq[SystemProcedures] =
    ServiceLoader.load(classOf[SystemProcedures], getClass.getClassLoader).asScala.toSeq

  /** The catalog's own procedures, then those of the layers above. */
  private def all(store: ShardStore): Map[String, UnboundProcedure] =
    (Seq(LastScansProcedure, new ClusteringProcedure(store), new IcebergProcedure(store)) ++ providers.flatMap(_.procedures(store)))
      .map(p => p.name().toLowerCase(Locale.ROOT) -> p).toMap

  /** The procedure `ident` names (`system.<name>`, any case), acting on `store`'s shards. */
  def load(ident: Identifier, store: ShardStore): UnboundProcedure = {
    val procedures = all(store)
    val found = ident.namespace().toSeq match {
      case Seq(ns) if ns.equalsIgnoreCase(Namespace) => procedures.get(ident.name().toLowerCase(Locale.ROOT))
      case _ => None
    }
    found.getOrElse(throw PersistError("PERSIST_PROCEDURE_NOT_FOUND",
      "procedure" -> (ident.namespace() :+ ident.name()).mkString("."),
      "procedures" -> procedures.keys.toSeq.sorted.map(n => s"$Namespace.$n").mkString(", ")).notFound)
  }

  /** The procedures of `namespace`: all of them in `system`, none elsewhere. */
  def list(namespace: Array[String], store: ShardStore): Array[Identifier] = namespace.toSeq match {
    case Seq(ns) if ns.equalsIgnoreCase(Namespace) =>
      all(store).keys.toSeq.sorted.map(n => Identifier.of(Array(Namespace), n)).toArray
    case _ => Array.empty
  }
}
