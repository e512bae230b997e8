package sparkpersist.roundtrip

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.expressions.{Cast, Literal}
import org.apache.spark.sql.types.{BinaryType, DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.schema.ColumnDef
import sparkpersist.stats.ColumnStats

/**
 * One row of `persist.<shard>.parts`, read back into stats: the ids of the columns in
 * `stats_trimmed` (by name), and each listed column's null count and bounds, parsed from the text
 * the table shows (binary from its `0x` hex, strings as they are, other types cast from string in
 * UTC, the session time zone the table must be read in). Nested stats are not in the table.
 */
final case class PartsTableRow(trimmed: Set[Int], columns: Map[Int, ColumnStats])

object PartsTableRow {
  def apply(row: Row, columns: Seq[ColumnDef]): PartsTableRow = {
    val byName = columns.map(c => c.name -> c.id).toMap
    val byId = columns.map(c => c.id -> c).toMap
    val trimmed = Option(row.getAs[Seq[String]]("stats_trimmed")).getOrElse(Nil).map(byName).toSet
    val stats = Option(row.getAs[Seq[Row]]("column_stats")).getOrElse(Nil).map { s =>
      val id = s.getAs[Int]("column_id")
      val c = byId(id)
      require(s.getAs[String]("column") == c.name, s"column_stats names column $id '${s.getAs[String]("column")}', not '${c.name}'")
      def bound(field: String) = Option(s.getAs[String](field)).map(parse(_, c.dataType))
      id -> ColumnStats(s.getAs[Long]("null_count"), bound("lower"), bound("upper"))
    }.toMap
    PartsTableRow(trimmed, stats)
  }

  /** The internal value of type `dt` that the table shows as `text`. */
  def parse(text: String, dt: DataType): Any = dt match {
    case BinaryType =>
      require(text.startsWith("0x"), s"binary bound '$text' is not 0x hex")
      text.drop(2).grouped(2).map(h => Integer.parseInt(h, 16).toByte).toArray
    case _: StringType => UTF8String.fromString(text)
    case _ => Cast(Literal(UTF8String.fromString(text)), dt, Some("UTC")).eval()
  }
}
