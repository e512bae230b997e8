package sparkpersist.plan

/**
 * Decides which parts a filter rules out, on the driver: one part after another for a small
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

  /** The positions `0 until count` of the parts that `admits` (by position) rules out. */
  def ruledOutPositions(count: Int, admits: Int => Boolean, parallelFrom: Long): java.util.BitSet = {
    val out = new java.util.BitSet(count)
    if (parallelFrom <= 0 || count < parallelFrom) (0 until count).foreach(i => if (!admits(i)) out.set(i))
    else java.util.stream.IntStream.range(0, count).parallel().filter(i => !admits(i)).toArray.foreach(out.set)
    out
  }
}
