package sparkpersist.stats

import org.apache.avro.io.BinaryDecoder
import org.apache.spark.sql.types.{DataType, DateType, DoubleType, LongType, TimestampType}

import sparkpersist.stats.BinaryStatsCodec.{readBound, whole, writeBound}
import sparkpersist.stats.StatsBinary._

/**
 * Binary encoding of [[CastStats]], the `casts` field of a string column's binary stats:
 * {{{
 *   casts := zone: string, unparsed: long,
 *            fields {1: exact, 2: truncated, 3: decimal, 4: double, 5: date, 6: timestamp}
 *   view  := count: long, lower, upper
 * }}}
 * Views that accept no value are left out; bounds are typed as [[CastStats]] says (the decimal
 * view's as exact decimals). Stats that do not read back whole (a damaged view, an unknown
 * view kind) fail whole, as the JSON codec's: the column then has no cast stats ("anything").
 */
private[stats] object BinaryCastCodec {

  /** Each view's type (None: exact decimals), in the order of [[CastStats.views]]. */
  private val viewTypes: IndexedSeq[Option[DataType]] =
    IndexedSeq(Some(LongType), Some(LongType), None, Some(DoubleType), Some(DateType), Some(TimestampType))

  def write(c: CastStats): Array[Byte] = encode { out =>
    out.writeString(c.zone)
    out.writeLong(c.unparsed)
    writeFields(out, c.views.zip(viewTypes).zipWithIndex.map { case (((name, range), dt), i) =>
      (i + 1) -> Option.when(range.count > 0)(encode { o =>
        o.writeLong(range.count)
        Seq(range.lower, range.upper).foreach { b =>
          val v = b.getOrElse(throw new IllegalArgumentException(s"cast stats '$name' count values but lack a bound"))
          dt.fold(writeDecimal(o, v.asInstanceOf[java.math.BigDecimal]))(writeBound(o, s"cast stats '$name'", _, v))
        }
      })
    }: _*)
  }

  def read(in: BinaryDecoder): CastStats = {
    val zone = string(in)
    val unparsed = readCount(in, "unparsed")
    val views = Array.fill(viewTypes.size)(CastRange.none)
    readFields(in) { (kind, p) =>
      require(kind >= 1 && kind <= viewTypes.size, s"unknown cast view $kind")
      views(kind - 1) = whole(p) { v =>
        val count = readCount(v, "count")
        require(count > 0, "a view that accepts no value is left out")
        def bound(): Any = viewTypes(kind - 1).fold[Any](readDecimal(v))(readBound(_, v))
        val lower = bound()
        CastRange(count, Some(lower), Some(bound()))
      }
    }
    CastStats(zone, views(0), views(1), views(2), views(3), views(4), views(5), unparsed)
  }
}
