package sparkpersist.stats

import org.apache.avro.io.BinaryDecoder
import org.apache.spark.sql.types.{DataType, DateType, DoubleType, LongType, TimestampNTZType, TimestampType}

import sparkpersist.stats.BinaryStatsCodec.{readBound, whole, writeBound}
import sparkpersist.stats.StatsBinary._

/**
 * Binary encoding of [[CastStats]], the `casts` field of a string column's binary stats:
 * {{{
 *   casts := zone: string, unparsed: long,
 *            fields {1: exact, 2: truncated, 3: decimal, 4: double, 5: date, 6: timestamp,
 *                    7: timestamp_ntz}
 *   view  := count: long, lower, upper | nothing (derived)
 *   timestamp_ntz := count: long, (lower, upper when count > 0)
 * }}}
 * The TIMESTAMP_NTZ view is written whenever it was recorded, even when it accepts no value
 * (absent: recorded before it, "anything"); readers of the release before refuse field 7 and
 * drop the cast stats whole.
 * Views that accept no value are left out; bounds are typed as [[CastStats]] says (the decimal
 * view's as exact decimals). A view with an empty payload is *derived* from the decimal view:
 * its count is the decimal view's, its bounds are what the decimal bounds give (exactly, as a
 * `Long`, for `exact`; truncated towards zero for `truncated`; rounded to the nearest double for
 * `double`). The writer derives a view only when that gives back exactly the view it holds, which
 * is the case of every column of integers or plain decimals written as text: their cast stats
 * take one view's bytes instead of four. Readers of the release before fail on an empty view,
 * and so drop the cast stats whole ("anything"). Stats that do not read back whole (a damaged view, an unknown
 * view kind) fail whole, as the legacy JSON's: the column then has no cast stats ("anything").
 */
private[stats] object BinaryCastCodec {

  /** Each view's type (None: exact decimals), in the order of [[CastStats.views]]. */
  private val viewTypes: IndexedSeq[Option[DataType]] =
    IndexedSeq(Some(LongType), Some(LongType), None, Some(DoubleType), Some(DateType), Some(TimestampType))

  /** The kinds of the views that may be derived from the decimal view: exact, truncated, double. */
  private val Exact = 1
  private val Truncated = 2
  private val Double = 4
  /** The kind of the TIMESTAMP_NTZ view, written apart from the six others. */
  private val TimestampNtz = 7

  /** What view `kind` is when derived from the decimal view `decimal` (None if it cannot be). */
  private def derived(kind: Int, decimal: CastRange): Option[CastRange] = {
    def bounds(f: java.math.BigDecimal => Any) = (decimal.lower, decimal.upper) match {
      case (Some(lo: java.math.BigDecimal), Some(hi: java.math.BigDecimal)) if decimal.count > 0 =>
        scala.util.Try(CastRange(decimal.count, Some(f(lo)), Some(f(hi)))).toOption
      case _ => None
    }
    kind match {
      case Exact => bounds(_.longValueExact())
      case Truncated => bounds(_.setScale(0, java.math.RoundingMode.DOWN).longValueExact())
      case Double => bounds(DoubleBounds.of)
      case _ => None
    }
  }

  def write(c: CastStats): Array[Byte] = encode { out =>
    out.writeString(c.zone)
    out.writeLong(c.unparsed)
    // The TIMESTAMP_NTZ view is written whenever recorded, a count of 0 included (absent: anything).
    val ntz = TimestampNtz -> c.timestampNtz.map(range =>
      if (range.count == 0) encode(_.writeLong(0L)) else written("timestampNtz", range, Some(TimestampNTZType)))
    writeFields(out, ntz +: c.views.zip(viewTypes).zipWithIndex.map { case (((name, range), dt), i) =>
      (i + 1) -> Option.when(range.count > 0)(
        if (derived(i + 1, c.decimal).contains(range)) Array.emptyByteArray else written(name, range, dt))
    }: _*)
  }

  /** A view that accepts some value: its count and bounds (of `dt`; None: exact decimals). */
  private def written(name: String, range: CastRange, dt: Option[DataType]): Array[Byte] = encode { o =>
    o.writeLong(range.count)
    Seq(range.lower, range.upper).foreach { b =>
      val v = b.getOrElse(throw new IllegalArgumentException(s"cast stats '$name' count values but lack a bound"))
      dt.fold(writeDecimal(o, v.asInstanceOf[java.math.BigDecimal]))(writeBound(o, s"cast stats '$name'", _, v))
    }
  }

  /** A view that accepts `count` values (read before), its bounds of `dt` (None: exact decimals). */
  private def bounds(v: BinaryDecoder, count: Long, dt: Option[DataType]): CastRange = {
    def bound(): Any = dt.fold[Any](readDecimal(v))(readBound(_, v))
    val lower = bound()
    CastRange(count, Some(lower), Some(bound()))
  }

  def read(in: BinaryDecoder): CastStats = {
    val zone = string(in)
    val unparsed = readCount(in, "unparsed")
    val views = Array.fill(viewTypes.size)(CastRange.none)
    val empty = scala.collection.mutable.Set.empty[Int]
    var ntz: Option[CastRange] = None
    readFields(in) { (kind, p) =>
      require(kind >= 1 && kind <= TimestampNtz, s"unknown cast view $kind")
      if (kind == TimestampNtz) ntz = Some(whole(p) { v =>
        val count = readCount(v, "count")
        if (count == 0) CastRange.none else bounds(v, count, Some(TimestampNTZType))
      })
      else if (p.isEnd) empty += kind else views(kind - 1) = whole(p) { v =>
        val count = readCount(v, "count")
        require(count > 0, "a view that accepts no value is left out")
        bounds(v, count, viewTypes(kind - 1))
      }
    }
    empty.foreach { kind =>
      views(kind - 1) = derived(kind, views(2)).getOrElse(throw new IllegalArgumentException(
        s"cast view $kind is derived from the decimal view, which cannot give it"))
    }
    CastStats(zone, views(0), views(1), views(2), views(3), views(4), views(5), unparsed, ntz)
  }
}
