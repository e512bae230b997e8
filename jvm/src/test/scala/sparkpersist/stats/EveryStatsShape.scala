package sparkpersist.stats

import org.apache.spark.sql.types._
import org.scalacheck.Gen

/** Part stats of every shape, each decodable exactly: for round-trip properties of the stats encodings. */
object EveryStatsShape {

  /** JSON stats as a collector makes them: kinds add up, keys and elements only where objects and arrays are. */
  def consistent(j: JsonStats): JsonStats = {
    val keys = j.objects.keys.map { case (k, v) => k -> consistent(v) }
    val objects = if (j.objects.count == 0 && keys.isEmpty) JsonObjectStats.none
      else JsonObjectStats((j.objects.count +: keys.values.map(_.count).toSeq).max.max(1), keys)
    val arrays = if (j.arrays.count == 0) JsonArrayStats.none else j.arrays.copy(elements = j.arrays.elements.map(consistent))
    val numbers = if (j.numbers.count == 0) JsonNumberStats.none else j.numbers
    val fixed = j.copy(numbers = numbers, objects = objects, arrays = arrays)
    fixed.copy(count = fixed.jsonNulls + fixed.booleans.count + numbers.count + fixed.strings.count +
      objects.count + arrays.count + fixed.others)
  }

  def consistent(c: ColumnStats): ColumnStats = c.copy(nested = c.nested.map {
    case j: JsonStats => consistent(j)
    case s: StructStats => StructStats(s.fields.map { case (k, v) => k -> consistent(v) })
    case a: ArrayStats => a.copy(elements = a.elements.map(consistent))
    case m: MapStats => m.copy(keys = m.keys.map(consistent), values = m.values.map(consistent))
  })

  private val castRange: (Gen[Any]) => Gen[CastRange] = bound => Gen.frequency(1 -> Gen.const(CastRange.none),
    2 -> (for { n <- Gen.choose(1L, Long.MaxValue); lo <- bound; hi <- bound } yield CastRange(n, Some(lo), Some(hi))))

  val casts: Gen[CastStats] = for {
    zone <- Gen.oneOf("UTC", "America/Los_Angeles", "+05:30")
    exact <- castRange(Gen.long)
    truncated <- castRange(Gen.long)
    decimal <- castRange(Gen.zip(Gen.long, Gen.choose(-400, 400)).map { case (u, s) => java.math.BigDecimal.valueOf(u, s) })
    double <- castRange(Gen.long.map(java.lang.Double.longBitsToDouble))
    date <- castRange(Gen.choose(Int.MinValue, Int.MaxValue))
    timestamp <- castRange(Gen.long)
    unparsed <- Gen.choose(0L, 1000L)
    ntz <- Gen.option(castRange(Gen.long))
  } yield CastStats(zone, exact, truncated, decimal, double, date, timestamp, unparsed, ntz)

  /** `c` with cast stats `cs` at every JSON place that holds strings. */
  private def withPlaceCasts(c: ColumnStats, cs: CastStats): ColumnStats = {
    def json(j: JsonStats): JsonStats = j.copy(casts = Option.when(j.strings.count > 0)(cs),
      objects = j.objects.copy(keys = j.objects.keys.map { case (k, v) => k -> json(v) }),
      arrays = j.arrays.copy(elements = j.arrays.elements.map(json)))
    c.copy(nested = c.nested.map {
      case j: JsonStats => json(j)
      case s: StructStats => StructStats(s.fields.map { case (k, v) => k -> withPlaceCasts(v, cs) })
      case a: ArrayStats => a.copy(elements = a.elements.map(withPlaceCasts(_, cs)))
      case m: MapStats => m.copy(keys = m.keys.map(withPlaceCasts(_, cs)), values = m.values.map(withPlaceCasts(_, cs)))
    })
  }

  /**
   * Every stats shape: each column kind, nested and JSON stats to 2 levels, cast stats on strings
   * and on the strings of JSON places.
   */
  val parts: Gen[PartStats] = for {
    stats <- StatsGen.part(StatsGen.schema, 2)
    withCasts <- Gen.sequence[List[(Int, ColumnStats)], (Int, ColumnStats)](stats.columns.toList.map { case (id, c) =>
      val string = StatsGen.schema.columns.exists(d => d.id == id && d.dataType == StringType)
      for {
        own <- if (string) Gen.option(casts) else Gen.const(None)
        inPlaces <- Gen.option(casts)
      } yield id -> inPlaces.fold(consistent(c))(withPlaceCasts(consistent(c), _)).copy(casts = own)
    })
    trimmed <- Gen.someOf(StatsGen.schema.columns.map(_.id))
    // Counts that cannot be true are dropped on decode (StatsConsistency): generate only true ones.
  } yield StatsConsistency.of(stats.copy(columns = withCasts.toMap, trimmed = trimmed.toSet))
}
