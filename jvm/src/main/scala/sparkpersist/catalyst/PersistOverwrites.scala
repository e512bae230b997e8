package sparkpersist.catalyst

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.analysis.ResolvedIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, OverwriteByExpression, OverwritePartitionsDynamic, Project, ReplaceTableAsSelect}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.catalog.{PersistCatalog, PersistTable}
import sparkpersist.dml.OverwriteShard
import sparkpersist.errors.PersistErrors
import sparkpersist.plan.TableView
import sparkpersist.shard.ShardState
import sparkpersist.write.DataSourceWriteOptions

/**
 * Overwrites of shards as retractions plus inserts in one batch ([[OverwriteShard]]), so history
 * before them stays readable: `INSERT OVERWRITE` and DataFrameWriterV2 `overwrite(condition)`
 * (Spark's `OverwriteByExpression`: the rows on which the condition holds are replaced),
 * `overwritePartitions()` (a shard has no partitions: every row is replaced), and
 * `CREATE OR REPLACE TABLE … AS SELECT` or `replace()` of an existing shard with the same columns
 * (every row replaced; other columns, partitioning or properties fail, since a replace keeps the
 * shard). A post-hoc resolution rule: the statements are resolved and aligned with the shard's
 * columns by then.
 */
object PersistOverwrites extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperators {
    case o: OverwriteByExpression if o.resolved => o.table match {
      case PersistRelation(r, t) => overwrite("INSERT OVERWRITE", r, t, o.deleteExpr, o.query, o.writeOptions)
      case _ => o
    }
    case o: OverwritePartitionsDynamic if o.resolved => o.table match {
      case PersistRelation(r, t) => overwrite("INSERT OVERWRITE", r, t, Literal.TrueLiteral, o.query, o.writeOptions)
      case _ => o
    }
    case rtas: ReplaceTableAsSelect if rtas.query.resolved => rtas.name match {
      case ResolvedIdentifier(catalog: PersistCatalog, ident) if catalog.tableExists(ident) =>
        catalog.loadTable(ident) match {
          case t: PersistTable => replace(rtas, t)
          case _ => rtas
        }
      case _ => rtas
    }
  }

  private def overwrite(statement: String, r: DataSourceV2Relation, t: PersistTable, condition: Expression,
      query: LogicalPlan, options: Map[String, String]): LogicalPlan = {
    if (t.view != TableView.Snapshot || t.travel.isDefined) return r // the table refuses the write when planned
    val state = t.shard.state
    OverwriteShard(statement, t.shard, state, r.copy(table = t.latestOf(state)), condition, Some(readingAt(query, t, state)),
      writeOptions(t, options))
  }

  /**
   * `query` with its snapshot reads of `t`'s shard reading `state`, the state the overwrite
   * replaces the rows of: a statement reads its table at one state, however late its query runs
   * and whatever others commit meanwhile (its batch then follows them, [[OverwriteShard]]).
   */
  private def readingAt(query: LogicalPlan, t: PersistTable, state: ShardState): LogicalPlan = query.transformUp {
    case PersistRelation(r, read) if read.shard.dir == t.shard.dir && read.view == TableView.Snapshot &&
        read.travel.isEmpty => r.copy(table = read.latestOf(state))
  }

  /** A replace of `t` by the rows of `rtas.query`, which must have `t`'s columns (matched by name). */
  private def replace(rtas: ReplaceTableAsSelect, t: PersistTable): LogicalPlan = {
    val shard = t.shard.name
    def fail(why: String): Nothing = throw PersistErrors.unsupportedInput(s"Cannot replace shard '$shard'", s"$why " +
      "A replace keeps the shard and its history; to start a new shard, DROP TABLE it first.")
    if (rtas.partitioning.nonEmpty) fail("shards have no partitions.")
    val changed = rtas.tableSpec.properties.filter { case (k, v) => t.properties().asScala.get(k).exists(_ != v) }
    if (changed.nonEmpty) fail(s"it would change the table properties ${changed.keys.toSeq.sorted.mkString(", ")}.")
    val columns = t.shardSchema.columns.map(_.name)
    val byName = rtas.query.output.map(a => a.name.toLowerCase(Locale.ROOT) -> a).toMap
    if (byName.size != columns.size || !columns.forall(c => byName.contains(c.toLowerCase(Locale.ROOT)))) {
      fail(s"the query's columns (${rtas.query.output.map(_.name).mkString(", ")}) are not the shard's " +
        s"(${columns.mkString(", ")}); add columns with ALTER TABLE ... ADD COLUMNS first.")
    }
    val state = t.shard.state
    OverwriteShard("REPLACE TABLE", t.shard, state, t.latestRelation(state), Literal.TrueLiteral,
      Some(Project(columns.map(c => byName(c.toLowerCase(Locale.ROOT))), readingAt(rtas.query, t, state))),
      writeOptions(t, rtas.writeOptions))
  }

  /** The statement's write options, as a write to `t` takes them ([[DataSourceWriteOptions]]). */
  private def writeOptions(t: PersistTable, options: Map[String, String]) =
    DataSourceWriteOptions.parse(t.shard.name, new CaseInsensitiveStringMap(options.asJava), streaming = false)
}
