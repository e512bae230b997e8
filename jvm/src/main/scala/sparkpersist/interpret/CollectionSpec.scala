package sparkpersist.interpret

/**
 * How the spec of an array or a map is written as a [[Values.Nested]], so that arrays and maps
 * need no values of their own and union, intersection and trimming work on them unchanged:
 *
 *  - `size`: the number of elements (entries) of the non-null arrays (maps), an int spec;
 *  - `element`: every element of every array (null where an element is null);
 *  - `key` and `value`: every key and every value of every map.
 *
 * As for struct fields, a missing piece admits anything. The names cannot clash with struct
 * fields: a spec is only ever read as its expression's type (an array is never a struct).
 */
private[interpret] object CollectionSpec {
  val Size = "size"
  val Element = "element"
  val Key = "key"
  val Value = "value"

  /** Sizes of arrays and maps that nothing is known about: never negative. */
  private val anySize = Values.Within(0, Int.MaxValue)

  def array(size: Option[ResultSpec], elements: Option[ResultSpec]): Values =
    Values.Nested((size.map(Size -> _) ++ elements.map(Element -> _)).toMap)

  def map(size: Option[ResultSpec], keys: Option[ResultSpec], values: Option[ResultSpec]): Values =
    Values.Nested((size.map(Size -> _) ++ keys.map(Key -> _) ++ values.map(Value -> _)).toMap)

  /** The sizes of the non-null collections in `spec`'s values (an int [[Values.Within]]). */
  def sizes(values: Values): Values.Within = values match {
    case Values.Nested(pieces) =>
      pieces.get(Size).map(_.values) match {
        case Some(w: Values.Within) => w
        case _ => anySize
      }
    case _ => anySize
  }

  /** The spec of one piece (`element`, `key`, `value`) of a collection's values. */
  def piece(values: Values, name: String): ResultSpec = values match {
    case Values.Nested(pieces) => pieces.getOrElse(name, ResultSpec.AnyValue)
    case _ => ResultSpec.AnyValue
  }
}
