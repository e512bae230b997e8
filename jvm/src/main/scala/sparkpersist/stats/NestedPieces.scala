package sparkpersist.stats

import org.apache.spark.unsafe.types.UTF8String

/**
 * One piece of a column's nested stats that the stats budget may drop: a struct field, the
 * elements of arrays, the keys or values of maps, a JSON object key, the elements of JSON
 * arrays, or the bounds of one nested value (a field's, an element's, one JSON kind's).
 *
 * @param column the column's stable id
 * @param index  the piece's place in its column's walk, in post-order (after the pieces below it);
 *               [[NestedPieces.drop]] names pieces by it
 * @param depth  1 for the pieces directly under the column, one more per level below
 * @param weight estimated encoded bytes of the piece without the pieces below it; it only
 *               orders the pieces of one depth
 */
private[stats] final case class Piece(column: Int, index: Int, depth: Int, weight: Int)

/**
 * Lists and drops the pieces of nested stats. Dropping follows the model's contract: a piece
 * removed leaves "anything" in its place (a field, key or element without stats, a side without
 * a bound); counts and sizes are never removed, so no kind of value is ever claimed absent.
 */
private[stats] object NestedPieces {

  /** The pieces of column `id`'s nested stats, in post-order. */
  def list(id: Int, stats: ColumnStats): Seq[Piece] = {
    val pieces = Seq.newBuilder[Piece]
    stats.nested.foreach(new Walk((index, depth, weight) => {
      pieces += Piece(id, index, depth, weight)
      false
    }).nested(_, 0))
    pieces.result()
  }

  /** `stats` without the nested pieces whose indices (from [[list]] on the same stats) are given. */
  def drop(stats: ColumnStats, indices: Set[Int]): ColumnStats =
    stats.copy(nested = stats.nested.map(new Walk((index, _, _) => indices(index)).nested(_, 0)))

  /**
   * One walk over nested stats that rebuilds them, asking `drop(index, depth, weight)` for every
   * piece. Pieces below a dropped one are walked all the same, so indices are the same whatever
   * is dropped.
   */
  private final class Walk(drop: (Int, Int, Int) => Boolean) {
    private var next = 0

    private def piece(depth: Int, weight: Int): Boolean = {
      val index = next
      next += 1
      drop(index, depth, weight)
    }

    def nested(n: NestedStats, depth: Int): NestedStats = n match {
      case StructStats(fields) =>
        StructStats(fields.flatMap { case (name, c) => keep(depth, name.length, column(c, depth + 1)).map(name -> _) })
      case a: ArrayStats => a.copy(elements = a.elements.flatMap(e => keep(depth, 0, column(e, depth + 1))))
      case m: MapStats =>
        m.copy(keys = m.keys.flatMap(k => keep(depth, 0, column(k, depth + 1))),
          values = m.values.flatMap(v => keep(depth, 0, column(v, depth + 1))))
      case j: JsonStats => json(j, depth)
    }

    /**
     * Visits a piece at `depth + 1` once what is below it is `rebuilt` (so indices are in
     * post-order); the piece unless it is dropped.
     */
    private def keep[T](depth: Int, nameLength: Int, rebuilt: T): Option[T] =
      if (piece(depth + 1, PieceOverhead + nameLength)) None else Some(rebuilt)

    private def column(c: ColumnStats, depth: Int): ColumnStats = {
      val dropped = boundsDropped(c.lower, c.upper, depth)
      c.copy(lower = if (dropped) None else c.lower, upper = if (dropped) None else c.upper,
        nested = c.nested.map(nested(_, depth)))
    }

    /** Visits the bounds at `depth + 1`, if there are any; whether they are dropped. */
    private def boundsDropped(lower: Option[Any], upper: Option[Any], depth: Int): Boolean =
      (lower.isDefined || upper.isDefined) && piece(depth + 1, weight(lower) + weight(upper))

    /**
     * Recurses straight from this frame (a loop, no closures): documents may be a thousand levels
     * deep, and each level costs stack.
     */
    private def json(j: JsonStats, depth: Int): JsonStats = {
      def scalar(s: JsonScalarStats) =
        if (boundsDropped(s.lower, s.upper, depth)) s.copy(lower = None, upper = None) else s
      val n = j.numbers
      val numbers = if (boundsDropped(n.lower, n.upper, depth)) n.copy(lower = None, upper = None) else n
      val keys = Map.newBuilder[String, JsonStats]
      val it = j.objects.keys.iterator
      while (it.hasNext) {
        val (k, v) = it.next()
        keep(depth, k.length, json(v, depth + 1)).foreach(kept => keys += k -> kept)
      }
      val elements = j.arrays.elements match {
        case Some(e) => keep(depth, 0, json(e, depth + 1))
        case None => None
      }
      j.copy(booleans = scalar(j.booleans), numbers = numbers, strings = scalar(j.strings),
        objects = j.objects.copy(keys = keys.result()), arrays = j.arrays.copy(elements = elements))
    }
  }

  /** Bytes of a piece besides its name or bounds (braces, labels, counts), roughly. */
  private val PieceOverhead = 24

  /** Rough encoded bytes of a bound with its label. */
  private def weight(bound: Option[Any]): Int = bound match {
    case None => 0
    case Some(s: UTF8String) => 10 + s.numBytes()
    case Some(b: Array[Byte]) => 10 + (b.length + 2) / 3 * 4
    case Some(v) => 10 + v.toString.length
  }
}
