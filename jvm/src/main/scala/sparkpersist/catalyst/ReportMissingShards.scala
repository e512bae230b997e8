package sparkpersist.catalyst

import java.util.Locale

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{NoSuchTableException, RelationTimeTravel, UnresolvedRelation}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.catalog.Identifier

import sparkpersist.catalog.PersistCatalog

/**
 * Reports a two-part name of the catalog `persist` that names no shard (`persist.nope`,
 * ``persist.`/no/shard/here` ``) as Spark reports a missing table, `TABLE_OR_VIEW_NOT_FOUND`.
 * Without it, Spark's direct query on files (`parquet.\`/path\``) would take the unresolved name
 * for a query on files of the data source `persist` (`format("persist")`, which shares the
 * catalog's name) and refuse it as such (`UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY`). It runs with
 * the hint rules, before relations are resolved; any other name is left to the analyzer.
 */
final case class ReportMissingShards(session: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    plan.foreachWithSubqueries(check)
    plan
  }

  private def check(node: LogicalPlan): Unit = node match {
    case u: UnresolvedRelation if u.multipartIdentifier.size == 2 && missing(u.multipartIdentifier) =>
      throw new NoSuchTableException(u.multipartIdentifier)
    case t: RelationTimeTravel => t.relation.foreachWithSubqueries(check) // a leaf holding its relation
    case _ =>
  }

  private def missing(name: Seq[String]): Boolean = {
    val catalogs = session.sessionState.catalogManager
    name.head.toLowerCase(Locale.ROOT) == ReportMissingShards.DataSourceName &&
      catalogs.isCatalogRegistered(name.head) && (catalogs.catalog(name.head) match {
        case c: PersistCatalog => !c.tableExists(Identifier.of(Array.empty, name(1)))
        case _ => false
      })
  }
}

object ReportMissingShards {
  /** The short name of the data source `sparkpersist.datasource.PersistDataSource`. */
  val DataSourceName = "persist"
}
