package sparkpersist.write

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.catalyst.expressions.RowOrdering
import org.apache.spark.sql.functions.{coalesce, col, lit, raise_error, unix_millis}
import org.apache.spark.sql.types.{DataType, LongType, TimestampType}

import sparkpersist.shard.{ReservedColumns, ShardSchema}

/**
 * Checks a DataFrame against a shard's schema and shapes it as the part layout
 * ([[PartFormat.partSchema]]): the data columns in the shard's order, then `time`, then `diff`,
 * sorted within each input partition as parts must be.
 *
 * Columns match the shard's by name, ignoring case; types must be equal (nullability aside). The
 * time column may also be a data column (an event timestamp that is also the update's time).
 * Any mismatch fails before a single row is written, naming the column, the expected and the
 * actual type. A null in a NOT NULL column, in the time column or in the diff column fails the
 * write when the row is reached.
 *
 * Sort order within a part: the shard's order key, then time; update writes then sort by the
 * remaining (orderable) data columns, so equal rows of one key and time are adjacent when
 * consolidation merges runs. An append-only write stamped with the commit time and without an
 * order key has nothing to sort by and is written in input order.
 */
object WriteInput {

  def prepare(df: DataFrame, shardName: String, schema: ShardSchema, options: WriteOptions,
      commitTime: Long): DataFrame = {
    val fields = df.schema.fields
    def find(name: String) = fields.find(_.name.equalsIgnoreCase(name))
    def fail(msg: String): Nothing = throw new IllegalArgumentException(s"Cannot write to shard '$shardName': $msg")

    def special(name: String, role: String, allowed: Seq[DataType]) = {
      val f = find(name).getOrElse(fail(s"the $role column '$name' is not a column of the DataFrame " +
        s"(columns: ${fields.map(_.name).mkString(", ")})."))
      if (!allowed.contains(f.dataType)) {
        fail(s"the $role column '${f.name}' must be ${allowed.map(_.sql.toLowerCase).mkString(" or ")}, " +
          s"but it is ${f.dataType.sql.toLowerCase}.")
      }
      f
    }
    val timeField = options.timeCol.map(special(_, ReservedColumns.Time, Seq(LongType, TimestampType)))
    val diffField = options.diffCol.map(special(_, ReservedColumns.Diff, Seq(LongType)))
    val specialNames = (timeField ++ diffField).map(_.name).toSet

    val extra = fields.filterNot(f => specialNames(f.name) || schema.column(f.name).isDefined)
    extra.foreach(f => ReservedColumns.requireNotReserved(f.name))
    if (extra.nonEmpty) {
      fail(s"column(s) ${extra.map(f => s"'${f.name}'").mkString(", ")} are not columns of the shard " +
        s"(shard columns: ${schema.columns.map(_.name).mkString(", ")}). Drop them before writing.")
    }
    val missing = schema.columns.filter(c => find(c.name).isEmpty)
    if (missing.nonEmpty) {
      fail(s"the DataFrame lacks the shard column(s) ${missing.map(c => s"'${c.name}' ${c.dataType.sql.toLowerCase}")
        .mkString(", ")}. Add them (a null literal cast to the type, if the column is nullable).")
    }

    val data = schema.columns.map { c =>
      val f = find(c.name).get
      if (!DataType.equalsIgnoreNullability(f.dataType, c.dataType)) {
        fail(s"column '${c.name}' must be ${c.dataType.sql.toLowerCase}, but the DataFrame's is " +
          s"${f.dataType.sql.toLowerCase}. Cast it to the shard's type.")
      }
      val value = if (!c.nullable && f.nullable) notNull(col(quote(f.name)), s"column '${c.name}' of the shard is NOT NULL")
                  else col(quote(f.name))
      value.as(c.name)
    }
    val time = timeField.fold(lit(commitTime)) { f =>
      val v = if (f.dataType == TimestampType) unix_millis(col(quote(f.name))) else col(quote(f.name))
      notNull(v, s"the time column '${f.name}' holds a null time")
    }
    val diff = diffField.fold(lit(1L))(f => notNull(col(quote(f.name)), s"the diff column '${f.name}' holds a null diff"))
    val shaped = df.select(data ++ Seq(time.as(ReservedColumns.Time), diff.as(ReservedColumns.Diff)): _*)

    val tail = if (options.isUpdate) {
      schema.columns.filter(c => !schema.orderBy.exists(_.equalsIgnoreCase(c.name)) &&
        RowOrdering.isOrderable(c.dataType)).map(_.name)
    } else Nil
    val keys = schema.orderBy ++ timeField.map(_ => ReservedColumns.Time) ++ tail
    if (keys.isEmpty) shaped else shaped.sortWithinPartitions(keys.map(k => col(quote(k))): _*)
  }

  private def quote(name: String): String = "`" + name.replace("`", "``") + "`"

  private def notNull(value: Column, what: String): Column =
    coalesce(value, raise_error(lit(s"Cannot write: $what. Filter or fill the nulls before writing.")))
}
