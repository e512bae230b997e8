package sparkpersist.write

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.errors.PersistErrors

/**
 * The options of a DataSource V2 write to a shard (`df.writeTo(...).option(k, v)`,
 * `df.write.option(k, v).insertInto(...)`, `writeStream.option(k, v).toTable(...)`), by the
 * names of `sparkpersist.write`'s arguments. None is silently ignored:
 *  - honored as `sparkpersist.write` honors them: `max_rows_per_part`, `keep_stats`,
 *    `index_columns` (comma-separated columns) and `json_columns` (must name exactly the shard's
 *    JSON columns, fixed when it was created);
 *  - refused by name, saying what to use instead: `time_col` and `diff_col` (a write to the shard's
 *    table is an append; updates go to its `.updates` table, with columns named `time` and `diff`), `order_by` (a table
 *    property, fixed at `CREATE TABLE`) and `merge_schema` (`ALTER TABLE ... ADD COLUMNS`);
 *  - any other key fails a batch write, naming the options a write takes. A streaming write
 *    also carries Spark's own options (`checkpointLocation`, ...): there only the names above
 *    are checked.
 */
object DataSourceWriteOptions {
  val MaxRowsPerPart = "max_rows_per_part"
  val KeepStats = "keep_stats"
  val IndexColumns = "index_columns"
  val JsonColumns = "json_columns"

  /** The options `sparkpersist.write` takes that a DSv2 write refuses, and what to use instead. */
  private val refused: Map[String, String] = Map(
    "time_col" -> ("a write to the shard's table is an append (every row stamped with the commit time, diff +1). " +
      "Write updates to the shard's updates table, with bigint columns named 'time' and 'diff': " +
      "df.withColumnRenamed(<time column>, 'time').withColumnRenamed(<diff column>, 'diff')" +
      ".writeTo('persist.<shard>.updates').append(), or INSERT INTO persist.<shard>.updates SELECT ..., <time>, <diff>."),
    "order_by" -> ("the order key is fixed when the shard is created: set the table property 'order_by' " +
      "(CREATE TABLE ... TBLPROPERTIES ('order_by' = 'c1, c2'), or df.writeTo(...).tableProperty('order_by', 'c1, c2'))."),
    "merge_schema" -> ("add the columns first with ALTER TABLE ... ADD COLUMNS, or write with " +
      "sparkpersist.write(df, shard, merge_schema=True)."))
    .flatMap { case (k, why) => if (k == "time_col") Seq(k -> why, "diff_col" -> why) else Seq(k -> why) }

  private val honored = Seq(MaxRowsPerPart, KeepStats, IndexColumns, JsonColumns)

  /**
   * The [[WriteOptions]] `options` ask for, for a write to shard `shardName`; fails on an option
   * refused or (unless `streaming`) unknown.
   */
  def parse(shardName: String, options: CaseInsensitiveStringMap, streaming: Boolean): WriteOptions = {
    val given = options.asCaseSensitiveMap().asScala.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v }.toMap
    given.keys.toSeq.sorted.foreach { key =>
      refused.get(key).foreach(why => fail(shardName, s"the write option '$key' is not taken here: $why"))
      if (!streaming && !honored.contains(key)) {
        fail(shardName, s"unknown write option '$key'. A write takes ${honored.mkString(", ")}; " +
          s"${refused.keys.toSeq.sorted.mkString(", ")} are for sparkpersist.write.")
      }
    }
    def columns(key: String): Seq[String] =
      given.get(key).toSeq.flatMap(_.split(",")).map(_.trim).filter(_.nonEmpty)
    val maxRows = given.get(MaxRowsPerPart).map { v =>
      v.trim.toLongOption.filter(_ >= 1).getOrElse(
        fail(shardName, s"the write option '$MaxRowsPerPart' must be a whole number of at least 1, got '$v'."))
    }
    WriteOptions(maxRowsPerPart = maxRows, keepStats = columns(KeepStats), indexColumns = columns(IndexColumns),
      jsonColumns = columns(JsonColumns))
  }

  private def fail(shardName: String, msg: String): Nothing = throw PersistErrors.invalidWrite(shardName, msg)
}
