package sparkpersist.stats

import org.apache.spark.sql.types.{ArrayType, DataType, Decimal, DecimalType, DoubleType, IntegerType, LongType, MapType, ShortType, StructField, StructType}

import sparkpersist.schema.{NestedFieldIds, ShardSchema, TypeWidening}

/**
 * A part's statistics carried from one schema of its shard to the next
 * ([[sparkpersist.schema.SchemaEvolution]]), column by stable id, so that they stay exact:
 *
 *  - a column added since: every row of the part is null for it (the part has no such field),
 *    so its stats are a null count of all rows;
 *  - a dropped column: its stats go;
 *  - a renamed column: its stats stay (they are keyed by id);
 *  - a widened column ([[TypeWidening]]): its bounds become the same values in the new type;
 *  - fields inside structs follow their ids too ([[sparkpersist.schema.NestedFieldIds]]): renamed,
 *    they keep their stats; dropped, they lose them; added (or added again under an old name),
 *    they are null in every row of the part; any other change inside a column keeps only its
 *    null count.
 */
object StatsEvolution {

  def conform(stats: PartStats, before: ShardSchema, after: ShardSchema): PartStats = {
    val columns = after.columns.iterator.flatMap { c =>
      before.columnById(c.id) match {
        case None => Some(c.id -> ColumnStats(stats.rowCount, None, None))
        case Some(old) => stats.columns.get(c.id).map { s =>
          c.id -> evolve(s, Side(old.dataType, old.fieldIds, Nil), Side(c.dataType, c.fieldIds, Nil), stats.rowCount)
        }
      }
    }.toMap
    stats.copy(columns = columns, trimmed = stats.trimmed.filter(id => after.columnById(id).isDefined))
  }

  /** A type at `path` inside a column whose fields have `ids` ([[NestedFieldIds]]). */
  private final case class Side(dataType: DataType, ids: Map[Seq[String], Int], path: Seq[String]) {
    def field(f: StructField): Side = Side(f.dataType, ids, path :+ f.name)
    /** The ids of the fields inside this type, by path from it. */
    def inner: Map[Seq[String], Int] =
      ids.collect { case (p, id) if p.size > path.size && p.startsWith(path) => p.drop(path.size) -> id }
  }

  /**
   * `stats` of values of `from` as stats of the same values read as `to`: struct fields follow
   * their ids (a field added since is null in each of the part's `rows`, since field stats count
   * the part's rows; a dropped one loses its stats), and leaves widen. Arrays and maps whose
   * insides changed keep only their null count.
   */
  private def evolve(stats: ColumnStats, from: Side, to: Side, rows: Long): ColumnStats =
    (from.dataType, to.dataType, stats.nested) match {
      case (f: StructType, t: StructType, Some(StructStats(known))) =>
        val fields = t.fields.iterator.flatMap { field =>
          NestedFieldIds.sameField(f, from.ids, from.path, field, to.ids, to.path) match {
            case None => Some(field.name -> ColumnStats(rows, None, None))
            case Some(old) => known.get(old.name).map(s => field.name -> evolve(s, from.field(old), to.field(field), rows))
          }
        }.toMap
        stats.copy(nested = Some(StructStats(fields)))
      case (f, t, _) if f == t && from.inner == to.inner => stats
      case (_: StructType | _: ArrayType | _: MapType, _, _) => ColumnStats(stats.nullCount, None, None)
      case (f, t, _) => widen(stats, f, t)
    }

  /**
   * `stats` of a column of type `from` as stats of the same values read as type `to`. A membership
   * filter stays: its hashes are of values, alike across every widening (integers as longs, floats
   * as doubles, decimals without trailing zeros, [[MembershipFilter.hash]]).
   */
  def widen(stats: ColumnStats, from: DataType, to: DataType): ColumnStats =
    if (!TypeWidening.widens(from, to)) ColumnStats(stats.nullCount, None, None)
    else {
      def bound(v: Option[Any]) = v.flatMap(widenValue(_, to))
      ColumnStats(stats.nullCount, bound(stats.lower), bound(stats.upper), members = stats.members)
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
