package sparkpersist.stats

import org.apache.spark.sql.types.{DataType, Decimal, DecimalType, DoubleType, IntegerType, LongType, ShortType, StructType}

import sparkpersist.schema.{ShardSchema, TypeWidening}

/**
 * A part's statistics carried from one schema of its shard to the next
 * ([[sparkpersist.schema.SchemaEvolution]]), column by stable id, so that they stay exact:
 *
 *  - a column added since: every row of the part is null for it (the part has no such field),
 *    so its stats are a null count of all rows;
 *  - a dropped column: its stats go;
 *  - a renamed column: its stats stay (they are keyed by id);
 *  - a widened column ([[TypeWidening]]): its bounds become the same values in the new type;
 *  - a struct with fields added: each added field is null in every row of the part;
 *    any other type change (none is accepted today) drops them, keeping the null count.
 */
object StatsEvolution {

  def conform(stats: PartStats, before: ShardSchema, after: ShardSchema): PartStats = {
    val columns = after.columns.iterator.flatMap { c =>
      before.columnById(c.id) match {
        case None => Some(c.id -> ColumnStats(stats.rowCount, None, None))
        case Some(old) => stats.columns.get(c.id).map { s =>
          c.id -> (if (old.dataType == c.dataType) s
            else if (TypeWidening.addsFields(old.dataType, c.dataType)) withFields(s, old.dataType, c.dataType, stats.rowCount)
            else widen(s, old.dataType, c.dataType))
        }
      }
    }.toMap
    stats.copy(columns = columns, trimmed = stats.trimmed.filter(id => after.columnById(id).isDefined))
  }

  /**
   * `stats` of a struct column (or field) of type `from` whose struct `to` adds fields: each added
   * field is null in each of the part's `rows` (field stats count the part's rows).
   */
  private def withFields(stats: ColumnStats, from: DataType, to: DataType, rows: Long): ColumnStats =
    (from, to, stats.nested) match {
      case (f: StructType, t: StructType, Some(StructStats(known))) =>
        val fields = t.fields.iterator.flatMap { field =>
          f.fields.find(_.name == field.name) match {
            case None => Some(field.name -> ColumnStats(rows, None, None))
            case Some(old) if old.dataType == field.dataType => known.get(field.name).map(field.name -> _)
            case Some(old) => known.get(field.name).map(s => field.name -> withFields(s, old.dataType, field.dataType, rows))
          }
        }.toMap
        stats.copy(nested = Some(StructStats(fields)))
      case _ => stats
    }

  /** `stats` of a column of type `from` as stats of the same values read as type `to`. */
  def widen(stats: ColumnStats, from: DataType, to: DataType): ColumnStats =
    if (!TypeWidening.widens(from, to)) ColumnStats(stats.nullCount, None, None)
    else {
      def bound(v: Option[Any]) = v.flatMap(widenValue(_, to))
      ColumnStats(stats.nullCount, bound(stats.lower), bound(stats.upper))
    }

  /** A bound widened to `to`, exactly; None (unbounded) for a value of an unexpected class. */
  private def widenValue(v: Any, to: DataType): Option[Any] = (v, to) match {
    case (b: Byte, ShortType) => Some(b.toShort)
    case (b: Byte, IntegerType) => Some(b.toInt)
    case (b: Byte, LongType) => Some(b.toLong)
    case (s: Short, IntegerType) => Some(s.toInt)
    case (s: Short, LongType) => Some(s.toLong)
    case (i: Int, LongType) => Some(i.toLong)
    case (f: Float, DoubleType) => Some(f.toDouble)
    case (d: Decimal, t: DecimalType) =>
      val widened = d.clone()
      if (widened.changePrecision(t.precision, t.scale)) Some(widened) else None
    case _ => None
  }
}
