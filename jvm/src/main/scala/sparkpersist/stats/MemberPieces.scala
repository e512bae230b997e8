package sparkpersist.stats

/**
 * The membership filters inside one column's stats, each a piece [[StatsBudget]] may drop alone:
 * the column's own filter, its arrays' elements', and those of the strings and of the integers at
 * each place of its JSON documents (a document has many places; dropping one place's filter
 * keeps the others').
 */
private[sparkpersist] object MemberPieces {

  /** One filter: its encoded size (computed when asked), and the column's stats without it. */
  final class Piece(filter: MembershipFilter, val drop: ColumnStats => ColumnStats) {
    lazy val bytes: Int = MembershipCodec.encode(filter).length
  }

  /** The filters of `c`, in no particular order. */
  def of(c: ColumnStats): Seq[Piece] = {
    val own = c.members.map(new Piece(_, _.copy(members = None))).toSeq
    val nested = c.nested.toSeq.flatMap {
      case a: ArrayStats => a.elements.flatMap(_.members).map(new Piece(_, onElements(_)(_.copy(members = None)))).toSeq
      case j: JsonStats => json(j, identity).map { case (m, at) => new Piece(m, onJson(_)(at)) }
      case _ => Nil
    }
    own ++ nested
  }

  /** Whether `c` has a filter anywhere. */
  def in(c: ColumnStats): Boolean = of(c).nonEmpty

  /** `c` without any filter. */
  def removed(c: ColumnStats): ColumnStats = of(c).foldLeft(c)((s, p) => p.drop(s))

  private def onElements(c: ColumnStats)(f: ColumnStats => ColumnStats): ColumnStats =
    c.copy(nested = c.nested.map {
      case a: ArrayStats => a.copy(elements = a.elements.map(f))
      case n => n
    })

  private def onJson(c: ColumnStats)(f: JsonStats => JsonStats): ColumnStats =
    c.copy(nested = c.nested.map {
      case j: JsonStats => f(j)
      case n => n
    })

  /**
   * The filters at every place under `j`, each with the rewrite that drops it from the top-level
   * document (`at` rewrites `j` inside it). Keys and elements are found again by name when
   * dropping, so the rewrites compose in any order.
   */
  private def json(j: JsonStats, at: (JsonStats => JsonStats) => JsonStats => JsonStats): Seq[(MembershipFilter, JsonStats => JsonStats)] = {
    val here = j.strings.members.map(_ -> at(s => s.copy(strings = s.strings.copy(members = None)))).toSeq ++
      j.numbers.members.map(_ -> at(s => s.copy(numbers = s.numbers.copy(members = None)))).toSeq
    val keys = j.objects.keys.toSeq.flatMap { case (k, v) =>
      json(v, f => at(s => s.copy(objects = s.objects.copy(keys = s.objects.keys.map {
        case (name, place) if name == k => name -> f(place)
        case other => other
      }))))
    }
    val elements = j.arrays.elements.toSeq.flatMap(e =>
      json(e, f => at(s => s.copy(arrays = s.arrays.copy(elements = s.arrays.elements.map(f))))))
    here ++ keys ++ elements
  }
}
