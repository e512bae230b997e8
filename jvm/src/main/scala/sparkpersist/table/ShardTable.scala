package sparkpersist.table

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.spark.sql.{Column, DataFrame, Row, SparkSession, functions}
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{DeleteFromTable, LogicalPlan, SubqueryAlias, UpdateTable}
import org.apache.spark.sql.connector.catalog.TableWritePrivilege
import org.apache.spark.sql.sparkpersist.{CatalystColumns, DataFrames}

import sparkpersist.catalog.SessionShards
import sparkpersist.compact.{CompactOptions, GcOptions, Lifecycle, LifecycleResult}

/**
 * A shard's table held by a handle, with delta-spark's `DeltaTable` names, so that code written
 * against Delta moves over with the import changed:
 *
 * {{{
 *   val events = ShardTable.forName(spark, "events")
 *   events.delete("country = 'XX'")
 *   events.as("t").merge(updates.as("s"), "t.id = s.id")
 *     .whenMatched().updateAll()
 *     .whenNotMatched().insertAll()
 *     .execute()
 *   events.history(10).show()
 *   events.restoreToVersion(3)
 * }}}
 *
 * `delete`, `update` and `merge` build Spark's own statements (`DeleteFromTable`, `UpdateTable`,
 * `MergeIntoTable`) over the shard's relation, so they are planned, pruned and committed exactly
 * as the same SQL statement. `history` and the restores read and run what SQL offers
 * (`persist.<shard>.history`, `RESTORE TABLE`); `compact` and `gc` run the shard's lifecycle.
 */
final class ShardTable private (spark: SparkSession, name: TableName, aliasName: Option[String]) {

  /** The shard, as the catalog's procedures name it (`CALL persist.system.compact(shard => ...)`). */
  def shard: String = name.shard

  /** This table under an alias, to name its columns in a condition (`t.id = s.id`). */
  def as(alias: String): ShardTable = new ShardTable(spark, name, Some(alias))

  /** This table under an alias (as [[as]]). */
  def alias(alias: String): ShardTable = as(alias)

  /** The table's rows as of now (under its alias, if any). */
  def toDF: DataFrame = {
    val df = spark.table(name.sql)
    aliasName.fold(df)(df.as)
  }

  /** Deletes every row (a retraction of each, as `DELETE FROM` without a condition). */
  def delete(): Unit = run(DeleteFromTable(target(TableWritePrivilege.DELETE), Literal.TrueLiteral))

  /** Deletes the rows on which the SQL condition holds. */
  def delete(condition: String): Unit = delete(functions.expr(condition))

  /** Deletes the rows on which `condition` holds. */
  def delete(condition: Column): Unit =
    run(DeleteFromTable(target(TableWritePrivilege.DELETE), expression(condition)))

  /** Sets the columns of `set` to their values in every row. */
  def update(set: Map[String, Column]): Unit = runUpdate(None, set)

  /** Sets the columns of `set` to their values in every row (Java). */
  def update(set: java.util.Map[String, Column]): Unit = update(set.asScala.toMap)

  /** Sets the columns of `set` to their values in the rows on which `condition` holds. */
  def update(condition: Column, set: Map[String, Column]): Unit = runUpdate(Some(condition), set)

  /** Sets the columns of `set` to their values in the rows on which `condition` holds (Java). */
  def update(condition: Column, set: java.util.Map[String, Column]): Unit = update(condition, set.asScala.toMap)

  /** Sets the columns of `set` to the values of their SQL expressions in every row. */
  def updateExpr(set: Map[String, String]): Unit = runUpdate(None, Assignments.parsed(set))

  /** Sets the columns of `set` to the values of their SQL expressions in every row (Java). */
  def updateExpr(set: java.util.Map[String, String]): Unit = updateExpr(set.asScala.toMap)

  /** Sets the columns of `set` to their SQL expressions' values where the SQL condition holds. */
  def updateExpr(condition: String, set: Map[String, String]): Unit =
    runUpdate(Some(functions.expr(condition)), Assignments.parsed(set))

  /** Sets the columns of `set` to their SQL expressions' values where the SQL condition holds (Java). */
  def updateExpr(condition: String, set: java.util.Map[String, String]): Unit = updateExpr(condition, set.asScala.toMap)

  /** Starts a MERGE of `source` into this table, matching rows on the SQL condition. */
  def merge(source: DataFrame, condition: String): ShardMergeBuilder = merge(source, functions.expr(condition))

  /** Starts a MERGE of `source` into this table, matching rows on `condition`. */
  def merge(source: DataFrame, condition: Column): ShardMergeBuilder =
    new ShardMergeBuilder(this, source, condition, Vector.empty)

  /** The table's commits, newest first: `persist.<shard>.history`. */
  def history(): DataFrame = spark.table(name.view("history").sql).orderBy(functions.col("version").desc)

  /** The table's newest `limit` commits, newest first. */
  def history(limit: Int): DataFrame = history().limit(limit)

  /** Restores the table to its rows at state version `version` (`RESTORE TABLE ... TO VERSION AS OF`). */
  def restoreToVersion(version: Long): DataFrame =
    spark.sql(s"RESTORE TABLE ${name.sql} TO VERSION AS OF $version")

  /** Restores the table to its rows at `timestamp` (`RESTORE TABLE ... TO TIMESTAMP AS OF`). */
  def restoreToTimestamp(timestamp: String): DataFrame =
    spark.sql(s"RESTORE TABLE ${name.sql} TO TIMESTAMP AS OF ${Literal(timestamp).sql}")

  /** Compacts the shard ([[Lifecycle.compact]]); one row: the compaction's summary. */
  def compact(options: CompactOptions = CompactOptions()): DataFrame =
    summary(Lifecycle.compact(spark, name.shard, options))

  /** Deletes the files no live state version refers to ([[Lifecycle.gc]]); one row: its summary. */
  def gc(options: GcOptions = GcOptions()): DataFrame = summary(Lifecycle.gc(spark, name.shard, options))

  /**
   * delta-spark's `vacuum`, as [[gc]]: deletes the files no live version refers to that are older than
   * the session's grace (`spark.sparkpersist.gc.graceMs`); live are the newest
   * `spark.sparkpersist.gc.keepVersions` versions and those committed within the grace.
   */
  def vacuum(): DataFrame = gc()

  /** delta-spark's `vacuum(retentionHours)`, as [[gc]] with a grace of `retentionHours`. */
  def vacuum(retentionHours: Double): DataFrame = {
    require(retentionHours >= 0, s"vacuum's retentionHours must be >= 0, got $retentionHours")
    gc(GcOptions(graceMs = Some((retentionHours * 3600000).toLong)))
  }

  /** The shard's parts, one row per part with its statistics (`persist.<shard>.parts`). */
  def parts: DataFrame = spark.table(name.view("parts").sql)

  /** The shard's batches (`persist.<shard>.batches`). */
  def batches: DataFrame = spark.table(name.view("batches").sql)

  /**
   * One row about the table, as delta-spark's `detail()`: `format` (`persist`), `name`, `numFiles`
   * (its parts), `sizeInBytes`, `numBatches` and `lastModified` (its newest batch's commit).
   */
  def detail(): DataFrame = {
    import functions._
    batches.agg(lit("persist").as("format"), lit(name.sql).as("name"),
      coalesce(sum("parts").cast("long"), lit(0L)).as("numFiles"), coalesce(sum("bytes"), lit(0L)).as("sizeInBytes"),
      count(lit(1)).as("numBatches"), timestamp_millis(max("committed_at_ms")).as("lastModified"))
  }

  /** The shard's raw updates (data..., time, diff), as `persist.<shard>.updates`. */
  def updates: DataFrame = spark.table(name.view("updates").sql)

  /** The shard's raw updates at times `since` (epoch milliseconds) and later. */
  def updates(since: Long): DataFrame = updates.where(functions.col("time") >= since)

  private def runUpdate(condition: Option[Column], set: Map[String, Column]): Unit =
    run(UpdateTable(target(TableWritePrivilege.UPDATE), Assignments(set, expression), condition.map(expression)))

  /** The statement's target: the shard's relation, written with `privileges`, under the alias if any. */
  private[table] def target(privileges: TableWritePrivilege*): LogicalPlan = {
    val relation = WriteTarget.relation(name.parts, privileges)
    aliasName.fold[LogicalPlan](relation)(SubqueryAlias(_, relation))
  }

  /** The Catalyst expression of `column`, as this table's session converts it. */
  private[table] def expression(column: Column): Expression = CatalystColumns.expression(spark, column)

  /** Runs a statement, as Spark runs the same SQL statement. */
  private[table] def run(statement: LogicalPlan): Unit = DataFrames.ofRows(spark, statement)

  private def summary(result: LifecycleResult): DataFrame =
    spark.createDataFrame(java.util.List.of(Row.fromSeq(result.fields.map(_.value))), result.schema)

  override def toString: String = s"ShardTable(${name.sql}${aliasName.fold("")(a => s" AS $a")})"
}

object ShardTable {

  /** The shard `name` (`events` or `persist.events`) of the session's persist catalog; fails if there is none. */
  def forName(spark: SparkSession, name: String): ShardTable = {
    val table = TableName.forName(name)
    SessionShards.store(spark).open(table.shard) // a clear error naming the shard when there is none
    new ShardTable(spark, table, None)
  }

  /** The shard `name` of the active session's persist catalog. */
  def forName(name: String): ShardTable = forName(SparkSession.active, name)

  /** The shard stored at `path` (`persist.`<path>``); fails if there is none. */
  def forPath(spark: SparkSession, path: String): ShardTable = {
    val table = TableName.forPath(path)
    spark.table(table.sql) // the catalog's error when no shard is there
    new ShardTable(spark, table, None)
  }

  /** The shard stored at `path`, in the active session. */
  def forPath(path: String): ShardTable = forPath(SparkSession.active, path)

  /**
   * Whether `identifier` is a shard: a path (holding `/` or `:`) where a shard is stored, or a
   * shard's name in the session's persist catalog.
   */
  def isShardTable(spark: SparkSession, identifier: String): Boolean = Try {
    if (identifier.exists(c => c == '/' || c == ':')) forPath(spark, identifier) else forName(spark, identifier)
  }.isSuccess

  /** [[isShardTable]] in the active session. */
  def isShardTable(identifier: String): Boolean = isShardTable(SparkSession.active, identifier)
}
