package sparkpersist.plan

import java.util.concurrent.atomic.LongAdder
import java.util.function.IntFunction

import sparkpersist.interpret.PartDecision

/**
 * The decision of every part of a list, made once, on the driver: one part after another for a
 * small list, and over the threads of the common fork-join pool (the driver's cores) once it holds
 * at least `parallelFrom` parts, as Iceberg plans large tables in parallel. The decision of one
 * part depends on nothing else (a [[sparkpersist.interpret.PartFilter]] is thread-safe), so both
 * ways decide exactly alike. Kept by position, as two bit sets: a shard of a million parts is
 * decided without a set of its parts.
 */
final class PartDecisions private (count: Int, val ruledOut: java.util.BitSet, val provenTrue: java.util.BitSet,
    /** How long deciding took, in nanoseconds. */
    val nanos: Long) {

  /** The decision of the part at position `i`. */
  def apply(i: Int): PartDecision =
    if (ruledOut.get(i)) PartDecision.RuledOut
    else if (provenTrue.get(i)) PartDecision.ProvenTrue
    else PartDecision.Undecided

  /** How many parts were decided. */
  def size: Int = count
}

object PartDecisions {

  /** Every part undecided (nothing to decide by), decided in no time. */
  def undecided(count: Int): PartDecisions = new PartDecisions(count, new java.util.BitSet, new java.util.BitSet, 0L)

  /**
   * The decisions of the parts at positions `0 until count`, by `decision` (of a position; an
   * IntFunction, whose position is not boxed as a Function1's would be: nothing is allocated per part).
   *
   * @param parallelFrom decide in parallel from this many parts on; 0: never
   */
  def decide(count: Int, decision: IntFunction[PartDecision], parallelFrom: Long): PartDecisions = {
    val start = System.nanoTime()
    val decisions = new Array[PartDecision](count)
    if (parallelFrom <= 0 || count < parallelFrom) {
      var i = 0
      while (i < count) {
        decisions(i) = decision(i)
        i += 1
      }
    } else java.util.stream.IntStream.range(0, count).parallel().forEach(i => decisions(i) = decision(i))
    Made.add(count)
    val (ruledOut, provenTrue) = (new java.util.BitSet(count), new java.util.BitSet(count))
    var i = 0
    while (i < count) {
      if (decisions(i) eq PartDecision.RuledOut) ruledOut.set(i)
      else if (decisions(i) eq PartDecision.ProvenTrue) provenTrue.set(i)
      i += 1
    }
    new PartDecisions(count, ruledOut, provenTrue, System.nanoTime() - start)
  }

  /**
   * How many part decisions this JVM made ([[decide]] is the one place parts are decided): what a
   * test reads to see that no query decides a part twice.
   */
  def made: Long = Made.sum()

  private val Made = new LongAdder
}
