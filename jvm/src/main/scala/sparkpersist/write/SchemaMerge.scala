package sparkpersist.write

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.lit

import sparkpersist.schema.{ColumnPosition, SchemaEvolution, ShardSchema}
import sparkpersist.shard.{ShardHandle, ShardState}

/**
 * A write with `merge_schema`: the DataFrame's columns the shard lacks are added to the shard
 * (nullable, after its other columns, each with a fresh id, as `ALTER TABLE ADD COLUMNS` does),
 * and the shard's columns the DataFrame lacks are written as nulls. Types of columns both have
 * must still match. The added columns commit with the batch, in one state version
 * ([[BatchCommit]]): if the write fails, or the shard's schema changes meanwhile, neither does.
 *
 * @param df          the DataFrame to write, with the shard's missing columns as nulls
 * @param state       the shard's state as the write sees it: with the merged schema
 * @param alteredFrom the shard's schema before the merge, when the merge adds columns
 */
final case class SchemaMerge(df: DataFrame, state: ShardState, alteredFrom: Option[ShardSchema])

object SchemaMerge {

  def apply(df: DataFrame, shard: ShardHandle, options: WriteOptions): SchemaMerge = {
    val special = Seq(options.timeCol, options.diffCol).flatten
    val fields = df.schema.fields.filterNot(f => special.exists(_.equalsIgnoreCase(f.name)))
    val context = s"Cannot merge the schema of the DataFrame into shard '${shard.name}'"
    val current = shard.state
    val merged = fields.filter(f => current.schema.column(f.name).isEmpty).foldLeft(current.schema) { (s, f) =>
      SchemaEvolution.addColumn(s, f.copy(nullable = true), ColumnPosition.Last, context)
    }
    val missing = merged.columns.filterNot(c => df.columns.exists(_.equalsIgnoreCase(c.name)))
    SchemaMerge(missing.foldLeft(df)((d, c) => d.withColumn(c.name, lit(null).cast(c.dataType))),
      current.copy(schema = merged), Some(current.schema).filter(_ != merged))
  }
}
