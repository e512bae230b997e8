package sparkpersist.stats

/** Cast stats at the edges of what the codecs must carry exactly, for the suites of each codec. */
object CastStatsSamples {
  private def dec(s: String) = new java.math.BigDecimal(s)

  /** Every view recorded, at the extremes of its type. */
  val extremes: CastStats = CastStats("America/Los_Angeles",
    exact = CastRange(3, Some(Long.MinValue), Some(Long.MaxValue)),
    truncated = CastRange(4, Some(Long.MinValue), Some(Long.MaxValue)),
    decimal = CastRange(5, Some(dec("-1E-60")), Some(dec("123456789012345678901234567890123456789.5"))),
    double = CastRange(6, Some(Double.NegativeInfinity), Some(Double.NaN)),
    date = CastRange(1, Some(Int.MinValue), Some(Int.MaxValue)),
    timestamp = CastRange(2, Some(-1L), Some(1L)),
    unparsed = 7,
    timestampNtz = Some(CastRange(3, Some(Long.MinValue), Some(Long.MaxValue))))

  /** One view only (a negative zero), no TIMESTAMP_NTZ view recorded. */
  val sparse: CastStats = CastStats("UTC", CastRange.none, CastRange.none, CastRange.none,
    CastRange(1, Some(-0.0), Some(-0.0)), CastRange.none, CastRange.none, unparsed = 0)

  /** The TIMESTAMP_NTZ view recorded, but nothing casts: kept apart from not recorded. */
  val noNtz: CastStats = sparse.copy(timestampNtz = Some(CastRange.none))

  val all: Seq[CastStats] = Seq(extremes, sparse, noNtz)
}
