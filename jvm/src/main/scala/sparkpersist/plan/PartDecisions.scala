package sparkpersist.plan

import sparkpersist.interpret.PartFilter

/**
 * Decides which parts a filter rules out (and proves true), on the driver: one part after another for a small
 * shard, and over the threads of the common fork-join pool (the driver's cores) once a scan
 * sees at least `parallelFrom` parts, as Iceberg plans large tables in parallel. The decision of
 * one part depends on nothing else (a [[sparkpersist.interpret.PartFilter]] is thread-safe), so
 * both ways rule out exactly the same parts.
 */
object PartDecisions {

  /**
   * The parts of `parts` (part metadata, or their stats) that `admits` rules out, in their order.
   *
   * @param parallelFrom decide in parallel from this many parts on; 0: never
   */
  def ruledOut[P](parts: IndexedSeq[P], admits: P => Boolean, parallelFrom: Long): IndexedSeq[P] = {
    val out = ruledOutPositions(parts.size, i => admits(parts(i)), parallelFrom)
    out.stream().toArray.toIndexedSeq.map(parts)
  }

  /**
   * The positions `0 until count` of the parts that `decision` (by position; [[PartFilter.decide]])
   * rules out, and of those it proves true.
   */
  def decidedPositions(count: Int, decision: Int => Int, parallelFrom: Long): Decided = {
    val decisions = new Array[Byte](count)
    if (parallelFrom <= 0 || count < parallelFrom) (0 until count).foreach(i => decisions(i) = decision(i).toByte)
    else java.util.stream.IntStream.range(0, count).parallel().forEach(i => decisions(i) = decision(i).toByte)
    val decided = Decided(new java.util.BitSet(count), new java.util.BitSet(count))
    var i = 0
    while (i < count) {
      if (decisions(i) == PartFilter.RuledOut) decided.ruledOut.set(i)
      else if (decisions(i) == PartFilter.ProvenTrue) decided.provenTrue.set(i)
      i += 1
    }
    decided
  }

  /** The positions of the parts a filter ruled out, and of those it proved true. */
  final case class Decided(ruledOut: java.util.BitSet, provenTrue: java.util.BitSet)

  /** The positions `0 until count` of the parts that `admits` (by position) rules out. */
  def ruledOutPositions(count: Int, admits: Int => Boolean, parallelFrom: Long): java.util.BitSet = {
    val out = new java.util.BitSet(count)
    if (parallelFrom <= 0 || count < parallelFrom) (0 until count).foreach(i => if (!admits(i)) out.set(i))
    else java.util.stream.IntStream.range(0, count).parallel().filter(i => !admits(i)).toArray.foreach(out.set)
    out
  }
}
