package sparkpersist.reliability

/**
 * The outcome of one reliability case run `runs` times: `failures` runs broke an invariant (an
 * undocumented exception, a lost or duplicated batch, an unreadable shard), of which `lost`
 * lost data or could answer wrongly (an acknowledged batch missing, stats that would skip a part
 * holding rows). `examples` describe the first few failures, enough to reproduce them.
 */
final case class Tally(name: String, runs: Long, failures: Long, lost: Long, examples: Vector[String]) {
  def ++(o: Tally): Tally =
    Tally(name, runs + o.runs, failures + o.failures, lost + o.lost, (examples ++ o.examples).take(Tally.Examples))

  def summary: String = s"$name: $runs runs, $failures failures, $lost data lost" +
    (if (examples.isEmpty) "" else examples.mkString("; first: ", "\n  ", ""))
}

object Tally {
  val Examples = 5

  def empty(name: String): Tally = Tally(name, 0, 0, 0, Vector.empty)

  /** One run: passed, or failed (losing data or not) for `why`. */
  def ok(name: String): Tally = Tally(name, 1, 0, 0, Vector.empty)
  def failed(name: String, why: String, lost: Boolean): Tally = Tally(name, 1, 1, if (lost) 1 else 0, Vector(why))
}
