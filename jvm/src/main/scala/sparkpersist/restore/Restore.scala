package sparkpersist.restore

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.functions.{abs, col, first, lit, sum, when}
import org.apache.spark.sql.sparkpersist.DataFrames
import org.apache.spark.sql.types.{DoubleType, FloatType, StringType}
import org.apache.spark.storage.StorageLevel

import sparkpersist.catalog.PersistTable
import sparkpersist.isolation.{StatementReads, StatementRebase}
import sparkpersist.plan.TableView
import sparkpersist.schema.ReservedColumns
import sparkpersist.shard.{CommitInfo, ShardHandle, VersionRecord}
import sparkpersist.write.{BatchCommit, ShardWriter, WriteInput, WriteOptions}

/**
 * Restores a shard to an earlier snapshot ([[RestoreTarget]]) with one batch at one new time: the
 * multiset difference of the snapshot then and the snapshot now (of the state read), each distinct
 * row once with its multiplicity as its diff — negative for copies there now and not then, positive
 * for copies there then and not now. Rows the two snapshots share are read once in each and not
 * written. Nothing is deleted: every earlier version reads as it did, and the shard's history
 * shows the RESTORE with the version (or time) it went back to.
 *
 * It commits as a statement that read the whole shard ([[StatementRebase]] over
 * [[StatementReads.everything]]): after an append that landed meanwhile (which it keeps), and it
 * fails with [[sparkpersist.isolation.ConcurrentShardUpdate]] after a commit that retracted rows.
 * A target below `since` or at or above `upper` is refused as a time-travel read is
 * ([[sparkpersist.plan.AsOf]]).
 *
 * Rows are compared as Spark's grouping compares them (nulls equal, NaN equal to NaN), but for a
 * float or double column, whose `-0.0` Spark's grouping takes for `0.0`: those are compared by their
 * text. Inside structs and arrays `-0.0` still counts as `0.0`; columns Spark cannot group by (maps,
 * VARIANT) make the restore fail with Spark's error.
 */
object Restore {

  def apply(spark: SparkSession, shard: ShardHandle, target: RestoreTarget): RestoreResult = {
    val state = shard.state
    val asOf = target.asOf(shard)
    val table = new PersistTable(shard, state.schema, TableView.Snapshot, shard.name, Map.empty)
    val names = state.schema.columns.map(_.name)
    def rows(t: PersistTable, diff: Long): DataFrame = DataFrames.ofRows(spark, DataSourceV2Relation.create(t, None, None))
      .toDF(names: _*).withColumn(ReservedColumns.Diff, lit(diff))
    val data = names.map(n => col(WriteInput.quote(n)))
    // Spark's grouping takes -0.0 for 0.0 and keeps 0.0: a float column is grouped by its text
    // (exact, -0.0 apart) and its value taken as it was.
    val floats = state.schema.columns.map(c => c.dataType == FloatType || c.dataType == DoubleType)
    val keys = data.zip(floats).zipWithIndex.map { case ((c, float), i) => if (float) c.cast(StringType).as(s"_key$i") else c }
    val values = data.zip(floats).zipWithIndex.collect { case ((c, true), i) => first(c).as(s"_value$i") }
    val grouped = rows(table.latestOf(state), -1L).unionAll(rows(table.travelledTo(asOf), 1L))
      .groupBy(keys: _*).agg(sum(ReservedColumns.Diff).as(ReservedColumns.Diff), values: _*)
    val difference = grouped.where(col(ReservedColumns.Diff) =!= 0L)
      .select(data.zip(floats).zipWithIndex.map { case ((c, float), i) =>
        if (float) col(s"_value$i").as(names(i)) else c } :+ col(ReservedColumns.Diff): _*)
      .persist(StorageLevel.MEMORY_AND_DISK)
    try {
      val counts = difference.agg(sum(copies(_ > 0L)), sum(copies(_ < 0L))).head()
      val restored = Option(counts.get(0)).fold(0L)(_.asInstanceOf[Long])
      val retracted = Option(counts.get(1)).fold(0L)(_.asInstanceOf[Long])
      val info = CommitInfo.inSession(spark.sessionState.conf, VersionRecord.Restore, Some(state),
        target.parameters + ("asOf" -> asOf.toString),
        Map("numRestoredRows" -> restored, "numRetractedRows" -> retracted))
      val updates = difference.select(data :+ lit(BatchCommit.commitTime(state.upper)).as(ReservedColumns.Time) :+
        col(ReservedColumns.Diff): _*)
      val batch = ShardWriter.write(updates, shard,
        WriteOptions(timeCol = Some(ReservedColumns.Time), diffCol = Some(ReservedColumns.Diff)), state,
        rebase = Some(StatementRebase.of(spark, shard, VersionRecord.Restore, state, StatementReads.everything)),
        info = Some(info))
      RestoreResult(shard.name, target, asOf, Option.when(batch.partCount > 0)(batch), restored, retracted,
        shard.state)
    } finally difference.unpersist()
  }

  /** The copies a group of diff `d` stands for when `keep(d)`, else 0. */
  private def copies(keep: Column => Column): Column = {
    val d = col(ReservedColumns.Diff)
    when(keep(d), abs(d)).otherwise(lit(0L))
  }
}
