package sparkpersist.stats

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.interpret.ValueOrdering

/**
 * Whether trimmed stats only widen the original ones: every count is the same, every piece kept
 * is kept with bounds at least as wide, and nothing is added. Returns the reasons it does not
 * (empty: it widens).
 */
object Widening {

  def problems(original: PartStats, trimmed: PartStats, schema: sparkpersist.schema.ShardSchema): Seq[String] = {
    val header =
      (if (trimmed.rowCount != original.rowCount || trimmed.bytes != original.bytes) Seq("row count or bytes changed")
      else Nil) ++
        trimmed.columns.keySet.diff(original.columns.keySet).map(id => s"column $id gained stats") ++
        original.trimmed.diff(trimmed.trimmed).map(id => s"column $id lost its trimmed mark")
    header ++ trimmed.columns.toSeq.flatMap { case (id, t) =>
      column(original.columns(id), t, schema.columnById(id).get.dataType, s"column $id")
    }
  }

  def column(o: ColumnStats, t: ColumnStats, dt: DataType, at: String): Seq[String] = {
    val ord = ValueOrdering.of(dt)
    def side(ob: Option[Any], tb: Option[Any], lowerSide: Boolean): Seq[String] = (ob, tb, ord) match {
      case (_, None, _) => Nil
      case (None, Some(_), _) => Seq(s"$at gained a bound")
      case (Some(x), Some(y), Some(o)) =>
        if ((lowerSide && o.lteq(y, x)) || (!lowerSide && o.gteq(y, x))) Nil else Seq(s"$at bound $y narrower than $x")
      case (Some(x), Some(y), None) =>
        if (StatValues.same(Some(x), Some(y))) Nil else Seq(s"$at changed an unordered bound")
    }
    (if (o.nullCount != t.nullCount) Seq(s"$at null count changed") else Nil) ++
      side(o.lower, t.lower, lowerSide = true) ++ side(o.upper, t.upper, lowerSide = false) ++
      ((o.nested, t.nested) match {
        case (_, None) => Nil
        case (None, Some(_)) => Seq(s"$at gained nested stats")
        case (Some(on), Some(tn)) => nested(on, tn, dt, at)
      })
  }

  private def nested(o: NestedStats, t: NestedStats, dt: DataType, at: String): Seq[String] = (o, t) match {
    case (os: StructStats, ts: StructStats) =>
      ts.fields.toSeq.flatMap { case (name, tf) =>
        val fieldType = dt match {
          case s: StructType => s.fields.find(_.name == name).map(_.dataType).getOrElse(NullType)
          case _ => NullType
        }
        os.fields.get(name).fold(Seq(s"$at.$name appeared"))(column(_, tf, fieldType, s"$at.$name"))
      }
    case (oa: ArrayStats, ta: ArrayStats) =>
      val e = dt match { case a: ArrayType => a.elementType; case _ => NullType }
      same(oa.copy(elements = None), ta.copy(elements = None), at) ++ optional(oa.elements, ta.elements, at + "[]")(column(_, _, e, _))
    case (om: MapStats, tm: MapStats) =>
      val (k, v) = dt match { case m: MapType => (m.keyType, m.valueType); case _ => (NullType, NullType) }
      same(om.copy(keys = None, values = None), tm.copy(keys = None, values = None), at) ++
        optional(om.keys, tm.keys, at + ".keys")(column(_, _, k, _)) ++
        optional(om.values, tm.values, at + ".values")(column(_, _, v, _))
    case (oj: JsonStats, tj: JsonStats) => json(oj, tj, at)
    case _ => Seq(s"$at changed kind of nested stats")
  }

  private def json(o: JsonStats, t: JsonStats, at: String): Seq[String] = {
    def counts(j: JsonStats) = (j.count, j.jsonNulls, j.booleans.count, j.numbers.count, j.numbers.integral,
      j.strings.count, j.objects.count, j.arrays.count, j.arrays.minSize, j.arrays.maxSize, j.others)
    def range[T](ol: Option[T], ou: Option[T], tl: Option[T], tu: Option[T], lteq: (T, T) => Boolean, what: String) =
      Seq((ol, tl, true), (ou, tu, false)).flatMap {
        case (_, None, _) => Nil
        case (None, Some(_), _) => Seq(s"$at gained a $what bound")
        case (Some(x), Some(y), lower) => if (if (lower) lteq(y, x) else lteq(x, y)) Nil else Seq(s"$at $what bound narrowed")
      }
    (if (counts(o) != counts(t)) Seq(s"$at JSON counts changed") else Nil) ++
      range[Any](o.booleans.lower, o.booleans.upper, t.booleans.lower, t.booleans.upper,
        (a, b) => !a.asInstanceOf[Boolean] || b.asInstanceOf[Boolean], "boolean") ++
      range[java.math.BigDecimal](o.numbers.lower, o.numbers.upper, t.numbers.lower, t.numbers.upper,
        (a, b) => a.compareTo(b) <= 0, "number") ++
      range[Any](o.strings.lower, o.strings.upper, t.strings.lower, t.strings.upper,
        (a, b) => a.asInstanceOf[UTF8String].binaryCompare(b.asInstanceOf[UTF8String]) <= 0, "string") ++
      keys(o, t, at) ++ optional(o.arrays.elements, t.arrays.elements, at + "[]")(json)
  }

  /** A loop rather than a `flatMap`: documents may be a thousand levels deep. */
  private def keys(o: JsonStats, t: JsonStats, at: String): Seq[String] = {
    val problems = Seq.newBuilder[String]
    val it = t.objects.keys.iterator
    while (it.hasNext) {
      val (k, tv) = it.next()
      o.objects.keys.get(k) match {
        case Some(ov) => problems ++= json(ov, tv, s"$at.$k")
        case None => problems += s"$at.$k appeared"
      }
    }
    problems.result()
  }

  private def same[T](o: T, t: T, at: String): Seq[String] = if (o == t) Nil else Seq(s"$at sizes or counts changed")

  private def optional[T](o: Option[T], t: Option[T], at: String)(check: (T, T, String) => Seq[String]): Seq[String] =
    (o, t) match {
      case (_, None) => Nil
      case (None, Some(_)) => Seq(s"$at appeared")
      case (Some(x), Some(y)) => check(x, y, at)
    }
}
