package sparkpersist.positional

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path

import sparkpersist.shard.{PartMeta, ShardHandle}

/**
 * How a snapshot read applies positional retractions: the rows to leave out of each part
 * (`dropped`, by part key), and the parts whose retractions are all among those rows
 * (`insertsOnly`): read, they keep their inserts only.
 */
final case class PositionalSnapshot(dropped: Map[String, DroppedPositions], insertsOnly: Set[String]) {
  def droppedFrom(part: PartMeta): DroppedPositions = dropped.getOrElse(part.key, DroppedPositions.None)

  /** How many rows the positions leave out, retractions not counted. */
  def rows: Long = dropped.valuesIterator.map(_.size.toLong).sum
}

object PositionalSnapshot {
  /**
   * The positional reading of a snapshot of `parts` (the parts visible as of its as-of, pairs of
   * a negation and its part left out) when one applies: some part holds retractions, every such
   * part has positions, every positions file names exactly the parts that refer to it, and every
   * part the positions name is among `parts`. Then leaving out the named rows and the retractions
   * removes, for each retraction, one copy of a row equal to it (the row it retracts, which the
   * statement that wrote it read in a snapshot read this same way): the sums of the snapshot are
   * unchanged, and no retraction is left to consolidate. Else `None`: the snapshot is consolidated
   * by value, as when no part has positions (after a compaction rewrote a named part, say).
   */
  def of(shard: ShardHandle, parts: IndexedSeq[PartMeta]): Option[PositionalSnapshot] = {
    val retracting = parts.filter(_.hasRetractions)
    if (retracting.isEmpty || retracting.exists(_.positions.isEmpty)) None
    else {
      val byFile = retracting.groupBy(_.positions.get)
      val files = load(shard, byFile.keys.toSeq)
      lazy val keys: Set[String] = parts.iterator.map(_.key).toSet
      val complete = byFile.forall { case (file, referring) =>
        val dir = file.substring(0, file.lastIndexOf('/') + 1)
        files(file).retracting.map(dir + _).toSet == referring.map(_.key).toSet &&
          files(file).targets.keys.forall(keys)
      }
      if (!complete) None
      else {
        val dropped = files.values.flatMap(_.targets).foldLeft(Option(Map.empty[String, DroppedPositions])) {
          case (Some(acc), (key, positions)) =>
            acc.get(key).fold(Option(positions))(_.union(positions)).map(acc.updated(key, _))
          case (None, _) => None
        }
        dropped.map(PositionalSnapshot(_, retracting.map(_.key).toSet))
      }
    }
  }

  /** The positions file at `key` (relative to the shard), read once per driver ([[Cache]]). */
  def positionsFile(shard: ShardHandle, key: String): RetractedPositions = load(shard, Seq(key))(key)

  /** The positions files at `keys` (relative to the shard), read in parallel, each once per driver ([[Cache]]). */
  private def load(shard: ShardHandle, keys: Seq[String]): Map[String, RetractedPositions] = {
    val path = (key: String) => new Path(shard.dir, key)
    keys.asJava.parallelStream().map[(String, RetractedPositions)] { key =>
      val full = shard.fs.makeQualified(path(key)).toString
      key -> Cache.get(full).getOrElse(Cache.put(full, RetractedPositions.read(shard.fs, path(key))))
    }.iterator().asScala.toMap
  }

  /**
   * Positions files read on this driver, by full path (they never change once committed), least
   * recently used dropped beyond [[Cache.MaxPositions]] positions in all (about 8 bytes each).
   */
  private object Cache {
    val MaxPositions = 16L << 20
    private var held = 0L
    private val files = new java.util.LinkedHashMap[String, RetractedPositions](16, 0.75f, true)

    def get(path: String): Option[RetractedPositions] = synchronized(Option(files.get(path)))

    def put(path: String, positions: RetractedPositions): RetractedPositions = synchronized {
      if (files.put(path, positions) == null) held += positions.rows
      val it = files.entrySet().iterator()
      while (held > MaxPositions && it.hasNext) {
        val eldest = it.next()
        if (eldest.getValue ne positions) {
          held -= eldest.getValue.rows
          it.remove()
        }
      }
      positions
    }
  }
}
