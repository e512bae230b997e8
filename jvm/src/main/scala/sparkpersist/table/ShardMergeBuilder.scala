package sparkpersist.table

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{Column, DataFrame, functions}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{DeleteAction, InsertAction, InsertStarAction, MergeAction, MergeIntoTable, UpdateAction, UpdateStarAction}
import org.apache.spark.sql.sparkpersist.DataFrames

import sparkpersist.errors.PersistErrors

/**
 * A MERGE of a source DataFrame into a [[ShardTable]], clause by clause, as delta-spark's
 * `DeltaMergeBuilder`: `whenMatched`, `whenNotMatched` and `whenNotMatchedBySource` clauses apply
 * in the order given (the first whose condition holds wins), then [[execute]] runs Spark's
 * `MergeIntoTable` over the shard, as `MERGE INTO` does.
 */
final class ShardMergeBuilder private[table] (
    private[table] val table: ShardTable,
    source: DataFrame,
    condition: Column,
    clauses: Vector[MergeClause]) {

  /** A clause for target rows with a matching source row. */
  def whenMatched(): ShardMergeMatchedActionBuilder = new ShardMergeMatchedActionBuilder(this, None)

  /** A clause for matched rows on which the SQL condition holds. */
  def whenMatched(condition: String): ShardMergeMatchedActionBuilder = whenMatched(functions.expr(condition))

  /** A clause for matched rows on which `condition` holds. */
  def whenMatched(condition: Column): ShardMergeMatchedActionBuilder =
    new ShardMergeMatchedActionBuilder(this, Some(condition))

  /** A clause for source rows with no matching target row. */
  def whenNotMatched(): ShardMergeNotMatchedActionBuilder = new ShardMergeNotMatchedActionBuilder(this, None)

  /** A clause for unmatched source rows on which the SQL condition holds. */
  def whenNotMatched(condition: String): ShardMergeNotMatchedActionBuilder = whenNotMatched(functions.expr(condition))

  /** A clause for unmatched source rows on which `condition` holds. */
  def whenNotMatched(condition: Column): ShardMergeNotMatchedActionBuilder =
    new ShardMergeNotMatchedActionBuilder(this, Some(condition))

  /** A clause for target rows with no matching source row. */
  def whenNotMatchedBySource(): ShardMergeNotMatchedBySourceActionBuilder =
    new ShardMergeNotMatchedBySourceActionBuilder(this, None)

  /** A clause for unmatched target rows on which the SQL condition holds. */
  def whenNotMatchedBySource(condition: String): ShardMergeNotMatchedBySourceActionBuilder =
    whenNotMatchedBySource(functions.expr(condition))

  /** A clause for unmatched target rows on which `condition` holds. */
  def whenNotMatchedBySource(condition: Column): ShardMergeNotMatchedBySourceActionBuilder =
    new ShardMergeNotMatchedBySourceActionBuilder(this, Some(condition))

  /** Runs the MERGE: one commit of the retractions and insertions of every clause. */
  def execute(): Unit = {
    if (clauses.isEmpty) {
      throw PersistErrors.invalidOption("ShardTable.merge", "a MERGE needs at least one clause: add whenMatched(), " +
        "whenNotMatched() or whenNotMatchedBySource() before execute().")
    }
    def of(kind: ClauseKind): Seq[MergeAction] = clauses.filter(_.kind == kind).map(_.action)
    val privileges = WriteTarget.mergePrivileges(of(Matched), of(NotMatched), of(NotMatchedBySource))
    table.run(MergeIntoTable(table.target(privileges: _*), DataFrames.logicalPlan(source), table.expression(condition),
      of(Matched), of(NotMatched), of(NotMatchedBySource), withSchemaEvolution = false))
  }

  private[table] def adding(kind: ClauseKind, action: MergeAction): ShardMergeBuilder =
    new ShardMergeBuilder(table, source, condition, clauses :+ MergeClause(kind, action))
}

private[table] sealed trait ClauseKind
private[table] case object Matched extends ClauseKind
private[table] case object NotMatched extends ClauseKind
private[table] case object NotMatchedBySource extends ClauseKind

private[table] final case class MergeClause(kind: ClauseKind, action: MergeAction)

/** The actions of a clause that updates or deletes target rows (matched, or not matched by source). */
sealed abstract class ShardMergeUpdateOrDelete private[table] (
    merge: ShardMergeBuilder, kind: ClauseKind, condition: Option[Column]) {

  protected val when: Option[Expression] = condition.map(merge.table.expression)

  protected def adding(action: MergeAction): ShardMergeBuilder = merge.adding(kind, action)

  /** Sets the target's columns of `set` to their values. */
  def update(set: Map[String, Column]): ShardMergeBuilder = adding(UpdateAction(when, Assignments(set, merge.table.expression)))

  /** Sets the target's columns of `set` to their values (Java). */
  def update(set: java.util.Map[String, Column]): ShardMergeBuilder = update(set.asScala.toMap)

  /** Sets the target's columns of `set` to the values of their SQL expressions. */
  def updateExpr(set: Map[String, String]): ShardMergeBuilder = update(Assignments.parsed(set))

  /** Sets the target's columns of `set` to the values of their SQL expressions (Java). */
  def updateExpr(set: java.util.Map[String, String]): ShardMergeBuilder = updateExpr(set.asScala.toMap)

  /** Deletes the target row. */
  def delete(): ShardMergeBuilder = adding(DeleteAction(when))
}

/** The actions of a `whenMatched` clause: update (some or all columns) or delete the target row. */
final class ShardMergeMatchedActionBuilder private[table] (merge: ShardMergeBuilder, condition: Option[Column])
    extends ShardMergeUpdateOrDelete(merge, Matched, condition) {

  /** Sets every column of the target row to the source's column of the same name (`UPDATE SET *`). */
  def updateAll(): ShardMergeBuilder = adding(UpdateStarAction(when))
}

/** The actions of a `whenNotMatchedBySource` clause: update or delete the target row. */
final class ShardMergeNotMatchedBySourceActionBuilder private[table] (
    merge: ShardMergeBuilder, condition: Option[Column])
    extends ShardMergeUpdateOrDelete(merge, NotMatchedBySource, condition)

/** The actions of a `whenNotMatched` clause: insert the source row (some or all columns). */
final class ShardMergeNotMatchedActionBuilder private[table] (merge: ShardMergeBuilder, condition: Option[Column]) {
  private val when = condition.map(merge.table.expression)

  /** Inserts a row of the values of `values` (the other columns null). */
  def insert(values: Map[String, Column]): ShardMergeBuilder =
    merge.adding(NotMatched, InsertAction(when, Assignments(values, merge.table.expression)))

  /** Inserts a row of the values of `values` (Java). */
  def insert(values: java.util.Map[String, Column]): ShardMergeBuilder = insert(values.asScala.toMap)

  /** Inserts a row of the values of SQL expressions. */
  def insertExpr(values: Map[String, String]): ShardMergeBuilder = insert(Assignments.parsed(values))

  /** Inserts a row of the values of SQL expressions (Java). */
  def insertExpr(values: java.util.Map[String, String]): ShardMergeBuilder = insertExpr(values.asScala.toMap)

  /** Inserts the source row as it is, column by column of the same names (`INSERT *`). */
  def insertAll(): ShardMergeBuilder = merge.adding(NotMatched, InsertStarAction(when))
}
