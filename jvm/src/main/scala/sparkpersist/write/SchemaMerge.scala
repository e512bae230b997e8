package sparkpersist.write

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.lit

import sparkpersist.schema.{ColumnPosition, SchemaEvolution}
import sparkpersist.shard.{ShardHandle, ShardState}

/**
 * A write with `merge_schema`: the DataFrame's columns the shard lacks are first added to the
 * shard (nullable, after its other columns, each with a fresh id, as `ALTER TABLE ADD COLUMNS`
 * does), in one state version; the shard's columns the DataFrame lacks are written as nulls.
 * Types of columns both have must still match. The columns stay added if the write then fails.
 */
object SchemaMerge {

  /** `df` with the shard's missing columns as nulls, and the shard's state once `df`'s new columns are added. */
  def apply(df: DataFrame, shard: ShardHandle, options: WriteOptions): (DataFrame, ShardState) = {
    val special = Seq(options.timeCol, options.diffCol).flatten
    val fields = df.schema.fields.filterNot(f => special.exists(_.equalsIgnoreCase(f.name)))
    val context = s"Cannot merge the schema of the DataFrame into shard '${shard.name}'"
    val state = shard.log.alterSchema { schema =>
      fields.filter(f => schema.column(f.name).isEmpty).foldLeft(schema) { (s, f) =>
        SchemaEvolution.addColumn(s, f.copy(nullable = true), ColumnPosition.Last, context)
      }
    }
    val missing = state.schema.columns.filterNot(c => df.columns.exists(_.equalsIgnoreCase(c.name)))
    (missing.foldLeft(df)((d, c) => d.withColumn(c.name, lit(null).cast(c.dataType))), state)
  }
}
