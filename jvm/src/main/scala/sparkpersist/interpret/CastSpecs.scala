package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions.EvalMode

import sparkpersist.interpret.TextCasts.TextCast
import sparkpersist.stats.PartStats

/**
 * The spec of `cast` applied to string column `columnId` over one part, from the column's
 * [[sparkpersist.stats.CastStats]] ([[TextCasts]]). A value that fails the cast raises under ANSI
 * and is NULL otherwise. Without cast stats (none of the values parses, or the stats were trimmed
 * or written before them): anything, as for a cast the interpreter does not know.
 */
final class CastSpecs(val columnId: Int, cast: TextCast) extends SlotSpecs {
  private val raises = cast.mode == EvalMode.ANSI

  def apply(stats: PartStats): ResultSpec = stats.columns.get(columnId) match {
    case None => ResultSpec.Anything
    case Some(c) =>
      val nonNull = stats.rowCount - c.nullCount
      if (nonNull <= 0) ResultSpec(nullable = c.nullCount > 0, fallible = false, Values.Empty)
      else c.casts.flatMap(TextCasts.outcome(_, nonNull, cast)) match {
        case None => ResultSpec.Anything
        case Some(o) =>
          ResultSpec(nullable = c.nullCount > 0 || (o.invalid && !raises), fallible = o.invalid && raises, o.values)
      }
  }
}
